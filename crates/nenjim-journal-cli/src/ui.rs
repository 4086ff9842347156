//! Where output goes: results to stdout, errors and progress to stderr.
//!
//! Colour is used only on a stream that is a terminal
//! ([`std::io::IsTerminal`]) and never when `NO_COLOR` is set (to any value);
//! JSON is never coloured. A closed stdout (`| head`) ends output quietly.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use serde::Serialize;

use crate::args::ColorChoice;
use crate::failure::CliError;
use crate::report::{ErrorJson, FailureDocument};

/// The directives of `-v`, `-vv` and `-vvv`: this workspace's crates (the
/// targets `nenjim_journal_*`) at info, debug and trace; other crates'
/// warnings and errors (the NATS and object-store clients') from `-v` on,
/// their info at `-vvv`.
fn verbosity(verbose: u8) -> Option<&'static str> {
    match verbose {
        0 => None,
        1 => Some("warn,nenjim_journal=info"),
        2 => Some("warn,nenjim_journal=debug"),
        _ => Some("info,nenjim_journal=trace"),
    }
}

/// Shows the libraries' tracing events on stderr when asked: `-v`
/// (repeated: [`verbosity`]) and/or a non-empty `RUST_LOG` (an env filter;
/// with both, `-v`'s directives are added to it). With neither, no
/// subscriber is installed and nothing more is printed. A `RUST_LOG` that
/// does not parse is said in one line on stderr and ignored.
pub fn show_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let env = std::env::var("RUST_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let mut directives: Vec<String> = Vec::new();
    if let Some(env) = env {
        match EnvFilter::builder().parse(&env) {
            Ok(_) => directives.push(env),
            Err(error) => {
                let _ = writeln!(io::stderr().lock(), "ignoring RUST_LOG={env:?}: {error}");
            }
        }
    }
    directives.extend(verbosity(verbose).map(str::to_owned));
    if directives.is_empty() {
        return;
    }
    let Ok(filter) = EnvFilter::builder().parse(directives.join(",")) else {
        return;
    };
    // Fails only if a subscriber is installed already: then that one shows them.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .try_init();
}

/// A text style.
#[derive(Clone, Copy, Debug)]
pub enum Paint {
    /// Errors and failed checks.
    Bad,
    /// Passed checks.
    Good,
    /// Warnings and removals.
    Warn,
    /// Headings and names.
    Strong,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Bad => "\x1b[1;31m",
            Paint::Good => "\x1b[32m",
            Paint::Warn => "\x1b[33m",
            Paint::Strong => "\x1b[1m",
        }
    }
}

/// The terminal facts of this run.
#[derive(Debug)]
pub struct Ui {
    colour_out: bool,
    colour_err: bool,
    stderr_terminal: bool,
    quiet: bool,
    /// Whether long output may go through a pager (stdout is a terminal, no `--no-pager`).
    pager: bool,
}

impl Ui {
    /// Reads `NO_COLOR` and whether stdout and stderr are terminals;
    /// `--color` overrides both, `--quiet` silences summaries, progress and warnings.
    pub fn from_environment(color: ColorChoice, quiet: bool, pager: bool) -> Ui {
        let allowed = std::env::var_os("NO_COLOR").is_none();
        let stderr_terminal = io::stderr().is_terminal();
        let (colour_out, colour_err) = match color {
            ColorChoice::Auto => (
                allowed && io::stdout().is_terminal(),
                allowed && stderr_terminal,
            ),
            ColorChoice::Always => (true, true),
            ColorChoice::Never => (false, false),
        };
        Ui {
            colour_out,
            colour_err,
            stderr_terminal,
            quiet,
            pager: pager && io::stdout().is_terminal(),
        }
    }

    /// Writes a view to stdout, through a pager when stdout is a terminal
    /// and the text is longer than the screen (`$LINES`, else 24 lines).
    pub fn page(&self, text: &str) -> Result<(), CliError> {
        let rows = std::env::var("LINES")
            .ok()
            .and_then(|l| l.parse::<usize>().ok())
            .unwrap_or(24);
        if !self.pager || text.lines().count() < rows {
            return self.print(text);
        }
        match spawn_pager() {
            Some(mut child) => {
                if let Some(mut stdin) = child.stdin.take() {
                    // The reader may quit early: a broken pipe is not an error.
                    let _ = stdin.write_all(text.as_bytes());
                }
                let _ = child.wait();
                Ok(())
            }
            None => self.print(text),
        }
    }

    /// Whether progress messages may be shown (stderr is a terminal, not `--quiet`).
    pub fn progress_enabled(&self) -> bool {
        self.stderr_terminal && !self.quiet
    }

    /// Writes a summary or a confirmation to stdout, unless `--quiet`.
    pub fn summary(&self, text: &str) -> Result<(), CliError> {
        if self.quiet {
            return Ok(());
        }
        self.print(text)
    }

    /// Writes a warning line to stderr, unless `--quiet`.
    pub fn warn(&self, message: &str) {
        if !self.quiet {
            self.eprintln(&format!("{} {message}", self.err(Paint::Warn, "warning:")));
        }
    }

    /// `text` styled for stdout.
    pub fn out(&self, paint: Paint, text: &str) -> String {
        styled(self.colour_out, paint, text)
    }

    /// `text` styled for stderr.
    pub fn err(&self, paint: Paint, text: &str) -> String {
        styled(self.colour_err, paint, text)
    }

    /// Writes `text` to stdout as it is.
    pub fn print(&self, text: &str) -> Result<(), CliError> {
        self.print_bytes(text.as_bytes())
    }

    /// Writes `bytes` to stdout as they are.
    pub fn print_bytes(&self, bytes: &[u8]) -> Result<(), CliError> {
        let mut out = io::stdout().lock();
        quiet_pipe(out.write_all(bytes).and_then(|()| out.flush()))
    }

    /// Writes one JSON document (pretty, then a newline) to stdout.
    pub fn print_json<T: Serialize>(&self, document: &T) -> Result<(), CliError> {
        let mut text = serde_json::to_string_pretty(document)
            .map_err(|e| CliError::io(Path::new("<stdout>"), "cannot encode JSON", e.into()))?;
        text.push('\n');
        self.print(&text)
    }

    /// Writes one line to stderr (errors there cannot be reported anywhere).
    pub fn eprintln(&self, line: &str) {
        let mut err = io::stderr().lock();
        let _ = writeln!(err, "{line}");
    }

    /// Reports a command that stopped: the diagnostic on stderr and, with
    /// `--json`, the failure document on stdout.
    pub fn report_failure(&self, command: &str, json: Json, error: &CliError) {
        self.eprintln(&format!("{} {error}", self.err(Paint::Bad, "error:")));
        let document = FailureDocument {
            command,
            ok: false,
            error: ErrorJson::of(error),
        };
        let printed = match json {
            Json::None => Ok(()),
            Json::Document => self.print_json(&document),
            // A stream of one object a line stays one: the failure is its
            // last line.
            Json::Lines => serde_json::to_string(&document)
                .map_err(|e| CliError::io(Path::new("<stdout>"), "cannot encode JSON", e.into()))
                .and_then(|mut line| {
                    line.push('\n');
                    self.print(&line)
                }),
        };
        if let Err(e) = printed {
            self.eprintln(&format!("{} {e}", self.err(Paint::Bad, "error:")));
        }
    }
}

/// How a command's output is JSON, for its failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Json {
    /// Text: the failure is said on stderr only.
    None,
    /// One JSON document (`--json`): the failure is one too.
    Document,
    /// One JSON object a line (`events --json`): the failure is one line.
    Lines,
}

/// `$PAGER` (split at spaces), else `less -FRX`; `None` if it cannot start.
fn spawn_pager() -> Option<std::process::Child> {
    let configured = std::env::var("PAGER").ok().filter(|p| !p.trim().is_empty());
    let line = configured.unwrap_or_else(|| "less -FRX".to_owned());
    let mut words = line.split_whitespace();
    let program = words.next()?;
    std::process::Command::new(program)
        .args(words)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .ok()
}

fn styled(colour: bool, paint: Paint, text: &str) -> String {
    if colour {
        format!("{}{text}\x1b[0m", paint.code())
    } else {
        text.to_owned()
    }
}

fn quiet_pipe(result: io::Result<()>) -> Result<(), CliError> {
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::io(Path::new("<stdout>"), "cannot write", e)),
    }
}
