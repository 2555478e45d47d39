//! The plain objects `PtySession`'s native methods return (N-API objects:
//! the exit, screen snapshots and styled runs, input states and waits, reads
//! and writes, incidents, captured output), with their conversions from the
//! core's types.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::screen::{self, View};
use crate::core::session::{self, Exit};

/// How a program ended.
#[napi(object, use_nullable = true)]
pub struct PtyExit {
    /// Exit code of a normal exit; `null` when a signal ended the program.
    pub exit_code: Option<i32>,
    /// Name of the signal that ended the program (`'SIGKILL'`), else `null`.
    pub signal: Option<String>,
    /// The session's `timeoutMs` ran out and ptypilot terminated the program.
    pub timed_out: bool,
    /// `kill()`, `terminate()`, dispose or the `AbortSignal` ended the program.
    pub cancelled: bool,
}

impl From<Exit> for PtyExit {
    fn from(e: Exit) -> Self {
        PtyExit {
            exit_code: e.exit_code,
            signal: e.signal,
            timed_out: e.timed_out,
            cancelled: e.cancelled,
        }
    }
}

/// Where the cursor is.
#[napi(object)]
pub struct CursorPosition {
    /// Row, 0-based.
    pub row: u32,
    /// Column, 0-based.
    pub col: u32,
    /// False when the program hid the cursor.
    pub visible: bool,
}

/// What the terminal shows, as plain text.
///
/// `lines` is not here: the JS layer splits it from `text` (a row cannot
/// contain a newline), which is cheaper than creating one string per row
/// through N-API.
#[napi(object)]
pub struct ScreenSnapshot {
    /// Visible rows right-trimmed, trailing blank rows dropped, joined by `\n`.
    pub text: String,
    /// Cursor position and visibility.
    pub cursor: CursorPosition,
    /// Width in columns.
    pub cols: u32,
    /// Height in rows.
    pub rows: u32,
    /// The program is using the alternate screen (full-screen programs).
    pub alt_screen: bool,
    /// Window title set by the program (OSC 0/2), or `''`.
    pub title: String,
    /// Output processed so far (monotonic), in bytes of decoded text: the
    /// same scale as `read().cursor`, so either can be a `since` point.
    pub seq: f64,
}

impl ScreenSnapshot {
    pub(crate) fn new(s: View, seq: u64) -> Self {
        ScreenSnapshot {
            text: s.text,
            cursor: CursorPosition {
                row: s.cursor_row.into(),
                col: s.cursor_col.into(),
                visible: s.cursor_visible,
            },
            cols: s.cols.into(),
            rows: s.rows.into(),
            alt_screen: s.alt_screen,
            title: s.title,
            seq: seq as f64,
        }
    }
}

/// Cells of one row that share colours and attributes (`screen({ attributes: true })`).
#[napi(object, use_nullable = true)]
pub struct StyledRun {
    /// First column (0-based).
    pub col: u32,
    /// Columns covered (a wide character covers two).
    pub width: u32,
    /// The characters; an empty cell is a space.
    pub text: String,
    /// Foreground: `null` for the default colour, 0-255 for an indexed one,
    /// `'#rrggbb'` for a true colour.
    pub fg: Option<Either<u32, String>>,
    /// Background, as `fg`.
    pub bg: Option<Either<u32, String>>,
    /// Bold (SGR 1).
    pub bold: bool,
    /// Dim (SGR 2).
    pub dim: bool,
    /// Italic (SGR 3).
    pub italic: bool,
    /// Underlined (SGR 4).
    pub underline: bool,
    /// Inverse video (SGR 7), how curses menus highlight a row.
    pub inverse: bool,
}

fn js_color(c: screen::Color) -> Option<Either<u32, String>> {
    match c {
        screen::Color::Default => None,
        screen::Color::Indexed(i) => Some(Either::A(i.into())),
        screen::Color::Rgb(r, g, b) => Some(Either::B(format!("#{r:02x}{g:02x}{b:02x}"))),
    }
}

impl From<screen::StyledRun> for StyledRun {
    fn from(r: screen::StyledRun) -> Self {
        StyledRun {
            col: r.col.into(),
            width: r.width.into(),
            text: r.text,
            fg: js_color(r.fg),
            bg: js_color(r.bg),
            bold: r.bold,
            dim: r.dim,
            italic: r.italic,
            underline: r.underline,
            inverse: r.inverse,
        }
    }
}

/// A screen snapshot and the styled runs of its rows, of one moment.
#[napi(object)]
pub struct StyledScreen {
    /// The plain snapshot.
    pub screen: ScreenSnapshot,
    /// For each row, its styled runs left to right (see `StyledRun`).
    pub attributes: Vec<Vec<StyledRun>>,
}

impl StyledScreen {
    /// From the core's snapshot and styled rows.
    pub fn new(snap: View, styles: Vec<Vec<screen::StyledRun>>, seq: u64) -> Self {
        StyledScreen {
            screen: ScreenSnapshot::new(snap, seq),
            attributes: styles
                .into_iter()
                .map(|row| row.into_iter().map(StyledRun::from).collect())
                .collect(),
        }
    }
}

/// A screen snapshot plus whether the screen settled before the timeout.
#[napi(object, use_nullable = true)]
pub struct SettledSnapshot {
    /// False when the timeout came first (or the wait was aborted).
    pub settled: bool,
    /// Why the wait ended: `'input'`, `'quiet'`, `'exit'`, `'timeout'` or
    /// `'aborted'`.
    pub reason: String,
    /// With `'input'`: the program's input state.
    pub input: Option<InputState>,
    /// The screen when the wait ended.
    pub screen: ScreenSnapshot,
}

/// The sandbox a program runs under (`PtySession.sandbox`).
#[napi(object, use_nullable = true)]
pub struct SandboxInfo {
    /// `'read-only'` or `'workspace-write'`.
    pub mode: String,
    /// The program may use the network (sockets other than Unix ones); with
    /// an allow list, only through the proxy.
    pub network: bool,
    /// The hosts it may reach through the proxy (`network: { allow }`);
    /// `null` without an allow list.
    pub allow_hosts: Option<Vec<String>>,
    /// Where it may write (resolved), its temporary folder last.
    pub writable: Vec<String>,
    /// What stays read-only inside those (`.git`), resolved.
    pub read_only: Vec<String>,
    /// Its private temporary folder (`TMPDIR`), removed when the session ends.
    pub temp_dir: String,
    /// What this system could not enforce (only with `ifUnavailable: 'warn'`).
    pub missing: Vec<String>,
    /// Where package managers keep their caches: `'private'`, `'shared'` or `'none'`.
    pub caches: String,
    /// The private cache folder the package managers are pointed at (`caches: 'private'` in
    /// `workspace-write`), or `null`.
    pub cache_dir: Option<String>,
    /// One line for statuses: `'workspace-write, network on'`.
    pub summary: String,
}

impl From<&crate::core::sandbox::Applied> for SandboxInfo {
    fn from(a: &crate::core::sandbox::Applied) -> Self {
        let text = |p: &std::path::PathBuf| p.to_string_lossy().into_owned();
        let mut summary = a.policy.describe();
        if !a.missing.is_empty() {
            summary.push_str(" (partly: ");
            summary.push_str(&a.missing.join("; "));
            summary.push(')');
        }
        SandboxInfo {
            mode: a.policy.mode.as_str().to_owned(),
            network: a.policy.network,
            allow_hosts: a
                .policy
                .hosts
                .as_ref()
                .map(|h| h.allow.iter().map(ToString::to_string).collect()),
            writable: a.writable.iter().map(text).collect(),
            read_only: a.read_only.iter().map(text).collect(),
            temp_dir: text(&a.temp_dir),
            missing: a.missing.clone(),
            caches: a.policy.caches.as_str().to_owned(),
            cache_dir: a.cache_dir.as_ref().map(text),
            summary,
        }
    }
}

/// Whether the program waits for input (`PtySession.inputState()`).
#[napi(object, use_nullable = true)]
pub struct InputState {
    /// The program waits for input now.
    pub waiting: bool,
    /// When waiting: `'line'` (canonical, echo), `'password'` (canonical,
    /// no echo) or `'key'` (raw); else `null`.
    pub kind: Option<String>,
    /// The waiting process, or when not waiting the foreground job's.
    pub pid: Option<i32>,
    /// That process's name.
    pub program: Option<String>,
    /// When waiting: when it began (ms since the epoch), as far as known.
    pub since: Option<f64>,
    /// `'kernel'` (the kernel showed the job blocked reading the terminal,
    /// or not) or `'quiet'` (the fallback); `null` without a terminal.
    pub how: Option<String>,
}

impl From<session::InputState> for InputState {
    fn from(s: session::InputState) -> Self {
        InputState {
            waiting: s.waiting,
            kind: s.kind.map(|k| k.as_str().to_owned()),
            pid: s.pid,
            program: s.program,
            since: s.since.map(|t| {
                t.duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
            }),
            how: s.how.map(|h| h.as_str().to_owned()),
        }
    }
}

/// How `waitForInput` ended.
#[napi(object)]
pub struct InputWait {
    /// `'input'`, `'exit'`, `'timeout'` or `'aborted'`.
    pub reason: String,
    /// The program's input state then.
    pub state: InputState,
    /// The screen then.
    pub screen: ScreenSnapshot,
}

/// What `writeInput` wrote.
#[napi(object)]
pub struct WrittenInput {
    /// Bytes written.
    pub bytes: u32,
    /// The terminal read a line without showing it (a password prompt): the
    /// input is kept nowhere.
    pub hidden: bool,
}

/// A slice of the transcript.
#[napi(object, use_nullable = true)]
pub struct ReadResult {
    /// The text (escape sequences stripped unless `raw`).
    pub text: String,
    /// Pass as `since` to the next `read` to get only what comes after.
    pub cursor: f64,
    /// The program is still running.
    pub running: bool,
    /// The exit code once it exited normally, else `null`.
    pub exit_code: Option<i32>,
    /// `since` was older than the oldest output still kept.
    pub truncated: bool,
}

/// A panic of the screen model that the session contained: the session went
/// on, and the model was rebuilt from the transcript without the output that
/// caused it.
#[napi(object)]
pub struct PtyIncident {
    /// What happened: the operation, the panic message and its location.
    pub message: String,
    /// Output bytes processed when it happened (as `screen().seq`).
    pub seq: f64,
}

/// Output kept by a one-shot run.
#[napi(object)]
pub struct CapturedOutput {
    /// Stripped output; head and tail when it was longer than the limit.
    pub output: String,
    /// Part of the middle was left out.
    pub truncated: bool,
}
