//! Issue 30, item 5: a live lease whose holder `/proc` cannot judge
//! (another host, another PID namespace) is judged through the server. A
//! holder that answers on its subject is never taken over; one that says
//! it answers but has no subscriber left (its connection closed) is taken
//! over after `UNANSWERED_FOR`, with the epoch's compare-and-set and the
//! fence; one that does not say it answers, or that subscribes and does
//! not answer in time, waits for its expiry.

use std::time::{Duration, Instant};

use async_nats::Client;
use futures::StreamExt as _;
use nenjim_journal_api::append::JournalWriter as _;
use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_nats::lease::{Lease, UNANSWERED_FOR};
use nenjim_journal_store::lease::{ANSWERS_NATS, HolderId, now_millis};
use nenjim_journal_testkit::nats::NatsServer;
use nenjim_journal_testkit::texts::{bare_genesis, ts};
use nenjim_journal_writer::WriterOptions;

use crate::jetstream::raw::Raw;
use crate::writer::root;

/// A client of the test's own, on a runtime of its own.
struct Probe {
    runtime: tokio::runtime::Runtime,
    client: Client,
}

impl Probe {
    fn connect(server: &NatsServer) -> Probe {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async_nats::connect(server.url())).unwrap();
        Probe { runtime, client }
    }

    /// Subscribes to `subject` (checked with a flush), answering each
    /// request with `answer` when it is `Some`, never answering otherwise;
    /// the subscription ends when the task is aborted.
    fn subscribe(
        &self,
        subject: &str,
        answer: Option<&'static str>,
    ) -> tokio::task::JoinHandle<()> {
        let client = self.client.clone();
        let mut subscriber = self.runtime.block_on(async {
            let subscriber = client.subscribe(subject.to_owned()).await.unwrap();
            client.flush().await.unwrap();
            subscriber
        });
        self.runtime.spawn(async move {
            while let Some(message) = subscriber.next().await {
                if let (Some(reply), Some(answer)) = (message.reply, answer) {
                    client.publish(reply, answer.into()).await.unwrap();
                }
            }
        })
    }

    /// The answer to a request on `subject` (waiting up to 10 s for it).
    fn ask(&self, subject: &str) -> Result<String, async_nats::RequestErrorKind> {
        let request = async_nats::Request::new().timeout(Some(Duration::from_secs(10)));
        self.runtime
            .block_on(self.client.send_request(subject.to_owned(), request))
            .map(|m| String::from_utf8_lossy(&m.payload).into_owned())
            .map_err(|e| e.kind())
    }
}

/// A holder id of another host (which `/proc` cannot judge), with `nonce`
/// and `answers` as its last field.
fn elsewhere(nonce: &str, answers: &str) -> String {
    format!("elsewhere.invalid/1/another-boot/1/{nonce}/4026531836/{answers}")
}

/// Makes the root `name`'s lease a live one of `holder`, an hour long.
fn hold(server: &NatsServer, name: &str, holder: &str) -> u64 {
    let raw = Raw::connect(server);
    let (lease, revision) = raw.lease(name);
    let epoch = lease.epoch() + 1;
    raw.put_lease(
        name,
        &Lease::new(holder, epoch, now_millis() + 3_600_000),
        revision,
    );
    epoch
}

/// A writer's holder id says it answers, and it does, on its subject, with
/// its id, from before its lease is written until it is dropped.
#[test]
fn a_writer_answers_on_its_subject_while_it_holds_the_lease() {
    let server = NatsServer::start();
    let nats = root(&server, "answers");
    let probe = Probe::connect(&server);
    let mut writer = nats.writer(WriterOptions::new()).unwrap();
    writer.append(&bare_genesis("a", &ts(1))).unwrap();
    let (lease, _) = Raw::connect(&server).lease("answers");
    let id = HolderId::parse(lease.holder()).unwrap();
    assert_eq!(id.answers, ANSWERS_NATS, "{}", lease.holder());
    let subject = format!("nenjim.answers.lease.{}", id.nonce);
    assert_eq!(probe.ask(&subject).as_deref(), Ok(lease.holder()));
    drop(writer);
    // The server drops the closed connection's subscription (a request
    // sent before it did is lost: asked again, within a generous bound).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match probe.ask(&subject) {
            Err(async_nats::RequestErrorKind::NoResponders) => break,
            other => assert!(Instant::now() < deadline, "still answered: {other:?}"),
        }
    }
}

/// Another host's holder: answering, it holds the root (at once, every
/// time); subscribed without answering, it holds it too; not saying it
/// answers, it holds it with no one to answer. Once no connection
/// subscribes to the subject of a holder that says it answers, the lease is
/// taken over after `UNANSWERED_FOR` (not before), at the next epoch, with
/// a fence at the tip.
#[test]
fn a_holder_elsewhere_is_taken_over_only_once_the_server_has_no_one_to_answer() {
    let server = NatsServer::start();
    let nats = root(&server, "elsewhere");
    let probe = Probe::connect(&server);
    let mut first = nats.writer(WriterOptions::new()).unwrap();
    first.append(&bare_genesis("a", &ts(1))).unwrap();
    first.close().unwrap();

    // It answers: LeaseHeld, naming it, nothing written.
    let holder = elsewhere("n1", ANSWERS_NATS);
    hold(&server, "elsewhere", &holder);
    let answering = probe.subscribe("nenjim.elsewhere.lease.n1", Some("here"));
    for _ in 0..3 {
        let e = nats.writer(WriterOptions::new()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
        assert!(e.message().contains(&holder), "{e}");
    }
    answering.abort();

    // Subscribed, never answering (a stopped process whose connection the
    // server has not dropped yet): live.
    let silent = probe.subscribe("nenjim.elsewhere.lease.n1", None);
    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
    silent.abort();

    // Not saying it answers (an older version, or a server that refused
    // it the subject): never asked, its lease runs until it expires.
    hold(&server, "elsewhere", &elsewhere("n2", "-"));
    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");
    hold(
        &server,
        "elsewhere",
        "elsewhere.invalid/1/another-boot/1/n3",
    );
    let e = nats.writer(WriterOptions::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LeaseHeld, "{e}");

    // Saying it answers, with no subscriber: taken over, fenced.
    let epoch = hold(&server, "elsewhere", &elsewhere("n4", ANSWERS_NATS));
    let tip = nats.ledger().unwrap().tip().unwrap();
    let started = Instant::now();
    let mut next = nats.writer(WriterOptions::new()).unwrap();
    let took = started.elapsed();
    assert!(took >= UNANSWERED_FOR, "taken over after {took:?}");
    assert_eq!(next.tip(), tip + 1, "the takeover fenced the tip");
    let (lease, _) = Raw::connect(&server).lease("elsewhere");
    assert_eq!(lease.epoch(), epoch + 1);
    assert_eq!(
        next.append(&bare_genesis("b", &ts(2))).unwrap().sequence(),
        tip + 2
    );
    next.close().unwrap();
}
