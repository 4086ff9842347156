//! Roots over TLS, against servers started here with certificates of a
//! test CA made by the tests (`testkit::tls::TestCa`): NATS with server
//! TLS and with mutual TLS, moto's S3 server, Azurite's blob service and
//! fake-gcs-server over HTTPS. A root is reached when its CA is trusted
//! (`NATS_CA`; `AWS_CA_BUNDLE` or `SSL_CERT_FILE` for every object store),
//! and refused otherwise with exit 2 and a message that says "certificate"
//! and names the variable to set (never a panic: the crash of two crypto
//! providers linked at once is what this guards).
#![allow(clippy::panic)]

use std::path::Path;
use std::process::Output;

use nenjim_journal_testkit::azurite::Azurite;
use nenjim_journal_testkit::cli::{assert_code, tempdir};
use nenjim_journal_testkit::fake_gcs::FakeGcs;
use nenjim_journal_testkit::moto::Moto;
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::tls::TestCa;

/// The command with `args` and the environment `env`.
fn run_with(env: &[(&str, &Path)], args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut command = crate::operators::command(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap_or_else(|e| panic!("{e}"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Exit 2, no panic, and a message with every one of `words`.
fn refused(output: &Output, words: &[&str]) {
    assert_code(output, 2);
    let stderr = stderr(output);
    assert!(!stderr.contains("panicked"), "{stderr}");
    for word in words {
        assert!(stderr.contains(word), "expected {word:?} in: {stderr}");
    }
}

fn tls_server(ca: &TestCa, verify_clients: bool) -> NatsServer {
    let (cert, key, cacert) = (
        ca.server_cert().display().to_string(),
        ca.server_key().display().to_string(),
        ca.ca().display().to_string(),
    );
    let mut args = vec![
        "--tls",
        "--tlscert",
        cert.as_str(),
        "--tlskey",
        key.as_str(),
    ];
    if verify_clients {
        args.extend(["--tlsverify", "--tlscacert", cacert.as_str()]);
    }
    NatsServer::start_with_args(&args)
}

#[test]
fn a_nats_root_over_tls_is_reached_with_its_ca_and_refused_without_it() {
    let ca = TestCa::new();
    let server = tls_server(&ca, false);
    let root = server.root("hub");
    let trusted = [("NATS_CA", ca.ca())];
    let trusted: Vec<(&str, &Path)> = trusted.iter().map(|(k, v)| (*k, v.as_path())).collect();
    assert_code(&run_with(&trusted, &[&"init", &root]), 0);
    assert_code(
        &run_with(
            &trusted,
            &[&"create", &root, &"left-pad", &"--description", &"pads"],
        ),
        0,
    );
    let list = run_with(&trusted, &[&"list", &root]);
    assert_code(&list, 0);
    assert!(String::from_utf8_lossy(&list.stdout).contains("left-pad"));
    // No CA: the server's certificate is not trusted, and the message says
    // which variable to set.
    refused(
        &run_with(&[], &[&"list", &root]),
        &["certificate", "NATS_CA"],
    );
    // The wrong CA.
    let other = ca.other_ca();
    refused(
        &run_with(&[("NATS_CA", &other)], &[&"list", &root]),
        &["certificate", "NATS_CA", "not trusted"],
    );
    // A CA file that is no certificate.
    let dir = tempdir();
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap_or_else(|e| panic!("{e}"));
    refused(
        &run_with(&[("NATS_CA", &junk)], &[&"list", &root]),
        &["certificate", "NATS_CA"],
    );
}

#[test]
fn a_nats_root_over_mutual_tls_needs_a_client_certificate_the_server_trusts() {
    let ca = TestCa::new();
    let server = tls_server(&ca, true);
    let root = server.root("hub");
    let (ca_file, cert, key) = (ca.ca(), ca.client_cert(), ca.client_key());
    let accepted = [
        ("NATS_CA", ca_file.as_path()),
        ("NATS_CERT", cert.as_path()),
        ("NATS_KEY", key.as_path()),
    ];
    assert_code(&run_with(&accepted, &[&"init", &root]), 0);
    assert_code(&run_with(&accepted, &[&"list", &root]), 0);
    // No client certificate.
    refused(
        &run_with(&[("NATS_CA", &ca_file)], &[&"list", &root]),
        &["certificate", "NATS_CERT"],
    );
    // One of another CA.
    let (stranger, stranger_key) = (ca.stranger_cert(), ca.stranger_key());
    refused(
        &run_with(
            &[
                ("NATS_CA", &ca_file),
                ("NATS_CERT", &stranger),
                ("NATS_KEY", &stranger_key),
            ],
            &[&"list", &root],
        ),
        &["certificate", "refused", "NATS_CERT"],
    );
    // A certificate with another certificate's key.
    refused(
        &run_with(
            &[
                ("NATS_CA", &ca_file),
                ("NATS_CERT", &cert),
                ("NATS_KEY", &stranger_key),
            ],
            &[&"list", &root],
        ),
        &["certificate", "NATS_KEY"],
    );
}

#[test]
fn a_bucket_over_https_is_trusted_through_aws_ca_bundle_or_ssl_cert_file() {
    let ca = TestCa::new();
    let moto = Moto::start_tls(&ca.server_cert(), &ca.server_key(), &ca.ca());
    moto.create_bucket("journals");
    let dir = tempdir();
    let s3 = |env: &[(&str, &Path)], args: &[&str]| {
        let mut command = crate::operators::s3_at(&moto.endpoint(), dir.path(), args);
        command
            .env_remove("SSL_CERT_FILE")
            .env_remove("AWS_CA_BUNDLE");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap_or_else(|e| panic!("{e}"))
    };
    let ca_file = ca.ca();
    // Not trusted: exit 2 at once (no retries), naming both variables.
    refused(
        &s3(
            &[],
            &[
                "init",
                "s3://journals/main",
                "--store",
                "s3://journals/store",
                "--create",
            ],
        ),
        &["certificate", "AWS_CA_BUNDLE", "SSL_CERT_FILE"],
    );
    let other = ca.other_ca();
    refused(
        &s3(
            &[("AWS_CA_BUNDLE", &other)],
            &[
                "init",
                "s3://journals/main",
                "--store",
                "s3://journals/store",
                "--create",
            ],
        ),
        &["certificate", "AWS_CA_BUNDLE"],
    );
    assert_code(
        &s3(
            &[("AWS_CA_BUNDLE", &ca_file)],
            &[
                "init",
                "s3://journals/main",
                "--store",
                "s3://journals/store",
                "--create",
            ],
        ),
        0,
    );
    assert_code(
        &s3(
            &[("SSL_CERT_FILE", &ca_file)],
            &[
                "create",
                "s3://journals/main",
                "left-pad",
                "--description",
                "pads",
            ],
        ),
        0,
    );
    let list = s3(
        &[("AWS_CA_BUNDLE", &ca_file)],
        &["list", "s3://journals/main"],
    );
    assert_code(&list, 0);
    assert!(String::from_utf8_lossy(&list.stdout).contains("left-pad"));
    // A CA file that cannot be read is named.
    let missing = dir.path().join("missing.pem");
    refused(
        &s3(
            &[("AWS_CA_BUNDLE", &missing)],
            &["list", "s3://journals/main"],
        ),
        &["AWS_CA_BUNDLE", "missing.pem"],
    );
}

#[test]
fn an_azure_container_over_https_is_trusted_through_ssl_cert_file_or_aws_ca_bundle() {
    let ca = TestCa::new();
    let azurite = Azurite::start_tls(&ca.server_cert(), &ca.server_key(), &ca.ca());
    azurite.create_container("journals");
    let dir = tempdir();
    // Azurite's well-known account, at its HTTPS address.
    let az = |env: &[(&str, &Path)], args: &[&str]| {
        let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|a| a as _).collect();
        let mut command = crate::operators::command(&args);
        command
            .current_dir(dir.path())
            .env("AZURE_STORAGE_USE_EMULATOR", "true")
            .env("AZURITE_BLOB_STORAGE_URL", azurite.endpoint())
            .env("XDG_CACHE_HOME", dir.path().join(".cache"))
            .env_remove("SSL_CERT_FILE")
            .env_remove("AWS_CA_BUNDLE");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap_or_else(|e| panic!("{e}"))
    };
    let init = [
        "init",
        "az://journals/main",
        "--store",
        "az://journals/store",
        "--create",
    ];
    // Not trusted: exit 2 at once (no retries), naming the variable.
    refused(
        &az(&[], &init),
        &["certificate", "SSL_CERT_FILE", "AWS_CA_BUNDLE"],
    );
    let other = ca.other_ca();
    refused(
        &az(&[("SSL_CERT_FILE", &other)], &init),
        &["certificate", "SSL_CERT_FILE", "not trusted"],
    );
    let ca_file = ca.ca();
    let trusted = [("SSL_CERT_FILE", ca_file.as_path())];
    assert_code(&az(&trusted, &init), 0);
    assert_code(
        &az(
            &trusted,
            &[
                "create",
                "az://journals/main",
                "left-pad",
                "--description",
                "pads",
            ],
        ),
        0,
    );
    let list = az(&trusted, &["list", "az://journals/main"]);
    assert_code(&list, 0);
    assert!(String::from_utf8_lossy(&list.stdout).contains("left-pad"));
    // AWS_CA_BUNDLE, which the refusal names too, is trusted for Azure as
    // well.
    assert_code(
        &az(
            &[("AWS_CA_BUNDLE", &ca_file)],
            &["list", "az://journals/main"],
        ),
        0,
    );
    // A root that exists is refused all the same without the CA.
    refused(
        &az(&[], &["list", "az://journals/main"]),
        &["certificate", "SSL_CERT_FILE"],
    );
    // A CA file that cannot be read is named.
    let missing = dir.path().join("missing.pem");
    refused(
        &az(
            &[("SSL_CERT_FILE", &missing)],
            &["list", "az://journals/main"],
        ),
        &["SSL_CERT_FILE", "missing.pem"],
    );
}

/// fake-gcs-server takes no write of `object_store` (the XML API's PUT):
/// the root is made on disk by the command, put into the bucket through
/// the emulator's JSON API, and read over TLS by the command.
#[test]
fn a_gcs_bucket_over_https_is_read_through_ssl_cert_file_or_aws_ca_bundle() {
    let ca = TestCa::new();
    let gcs = FakeGcs::start_tls(&ca.server_cert(), &ca.server_key(), &ca.ca());
    gcs.create_bucket("journals");
    let dir = tempdir();
    let local = dir.path().join("main");
    assert_code(&run_with(&[], &[&"init", &local]), 0);
    assert_code(
        &run_with(
            &[],
            &[&"create", &local, &"left-pad", &"--description", &"pads"],
        ),
        0,
    );
    gcs.put_tree("journals", "main", &local);
    let key = gcs.service_account_key();
    let gs = |env: &[(&str, &Path)], args: &[&str]| {
        let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|a| a as _).collect();
        let mut command = crate::operators::command(&args);
        command
            .current_dir(dir.path())
            .env("GOOGLE_SERVICE_ACCOUNT_KEY", &key)
            .env("XDG_CACHE_HOME", dir.path().join(".cache"))
            .env_remove("SSL_CERT_FILE")
            .env_remove("AWS_CA_BUNDLE");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap_or_else(|e| panic!("{e}"))
    };
    let list = ["list", "gs://journals/main"];
    // Not trusted: exit 2 at once (no retries), naming the variable.
    refused(
        &gs(&[], &list),
        &["certificate", "SSL_CERT_FILE", "AWS_CA_BUNDLE"],
    );
    let other = ca.other_ca();
    refused(
        &gs(&[("SSL_CERT_FILE", &other)], &list),
        &["certificate", "SSL_CERT_FILE", "not trusted"],
    );
    let ca_file = ca.ca();
    let trusted = [("SSL_CERT_FILE", ca_file.as_path())];
    let listed = gs(&trusted, &list);
    assert_code(&listed, 0);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("left-pad"));
    assert_code(&gs(&trusted, &["check", "gs://journals/main"]), 0);
    // AWS_CA_BUNDLE, which the refusal names too, is trusted for GCS as well.
    assert_code(&gs(&[("AWS_CA_BUNDLE", &ca_file)], &list), 0);
}
