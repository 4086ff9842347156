//! Credentials from the standard NATS settings, against a real server that
//! requires them; an error names the setting, never the secret.

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_nats::NatsRoot;
use nenjim_journal_testkit::nats::NatsServer;

fn connect(server: &NatsServer, env: &[(&str, &str)]) -> Result<(), String> {
    let root = NatsRoot::parse_with_env(&server.root("main"), env.iter().copied())
        .map_err(|e| e.to_string())?;
    let ledger = root.ledger().map_err(|e| {
        assert_eq!(e.kind(), ErrorKind::Io, "{e}");
        e.message().to_owned()
    })?;
    ledger.create().map_err(|e| e.to_string())?;
    Ok(())
}

#[test]
fn a_token_from_nats_token_is_used_and_a_wrong_one_is_named_not_shown() {
    let server = NatsServer::start_with_args(&["--auth", "s3cret-t0ken"]);
    connect(&server, &[("NATS_TOKEN", "s3cret-t0ken")]).unwrap();
    let refused = connect(&server, &[("NATS_TOKEN", "wr0ng-t0ken")]).unwrap_err();
    assert!(
        refused.contains("authenticating with NATS_TOKEN"),
        "{refused}"
    );
    assert!(
        !refused.contains("wr0ng-t0ken") && !refused.contains("s3cret"),
        "{refused}"
    );
    let refused = connect(&server, &[]).unwrap_err();
    assert!(refused.contains("cannot connect"), "{refused}");
}

#[test]
fn a_user_and_password_from_nats_user_and_nats_password_are_used() {
    let server = NatsServer::start_with_args(&["--user", "journal", "--pass", "pa55word"]);
    connect(
        &server,
        &[("NATS_USER", "journal"), ("NATS_PASSWORD", "pa55word")],
    )
    .unwrap();
    let refused = connect(
        &server,
        &[("NATS_USER", "journal"), ("NATS_PASSWORD", "bad-pa55")],
    )
    .unwrap_err();
    assert!(refused.contains("NATS_USER/NATS_PASSWORD"), "{refused}");
    assert!(
        !refused.contains("bad-pa55") && !refused.contains("pa55word"),
        "{refused}"
    );
}

#[test]
fn an_unreadable_creds_file_names_nats_creds_and_its_path() {
    let server = NatsServer::start();
    let refused = connect(&server, &[("NATS_CREDS", "/nonexistent/user.creds")]).unwrap_err();
    assert!(refused.contains("NATS_CREDS"), "{refused}");
    assert!(refused.contains("/nonexistent/user.creds"), "{refused}");
}

#[test]
fn no_server_at_the_address_is_unavailable_naming_the_root() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let root = NatsRoot::parse_with_env(
        &format!("nats://127.0.0.1:{port}/main"),
        Vec::<(String, String)>::new(),
    )
    .unwrap();
    let e = root.ledger().unwrap_err();
    // No server answers: retry later, and the message says so.
    assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
    assert!(e.message().contains("retry later"), "{e}");
    assert!(
        e.message()
            .contains(&format!("nats://127.0.0.1:{port}/main")),
        "{e}"
    );
}
