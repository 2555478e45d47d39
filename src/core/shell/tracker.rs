//! The marker state machine of one shell ([`Tracker`]): which output belongs
//! to the command, and when the command ended.

use super::DEFAULT_MAX_OUTPUT;
use super::markers::{Marker, MarkerParser, Piece};
use crate::core::transcript::{HeadTail, Stripper};

/// A line longer than this (in bytes of terminal output) is let out in
/// pieces, so one endless line cannot grow memory without bound.
pub(super) const LONG_LINE: usize = 1 << 20;
/// Discarded output kept to explain a shell that failed to start.
pub(super) const DISCARDED_KEPT: usize = 2048;
/// Output held back after a `D` marker beyond this much is the command's:
/// the shell prints nothing between `D` and `E`.
pub(super) const ENDING_KEPT: usize = 64 << 10;

/// Where the shell is, as far as the markers tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Started; the marker prompt has not appeared yet.
    Starting,
    /// At the prompt, ready for a line.
    Idle,
    /// The command ended (`D`); its prompt has not appeared yet.
    AwaitPrompt,
    /// A run line was written; the command has not started (`C`) yet.
    Submitted,
    /// The command runs: output is the command's.
    Running,
    /// A `D` marker came: the shell waits for the secret line, then prints
    /// `E` (see [`Tracker::take_confirm`]). Output is held back: it is the
    /// command's only if another `D` follows (the first was printed by the
    /// command itself).
    Ending,
}

/// The command file's path in the forms the shells' messages show it, and
/// what each becomes (see [`Tracker::name_file`]).
#[derive(Debug, Clone)]
struct FileNames {
    path: String,
    /// `: <path>: ` (dash) becomes `: `.
    inner: String,
    /// `<path>:` (bash, zsh) becomes `<shell>:`.
    colon: String,
    shell_colon: String,
    /// `<path> (line ` (fish) becomes `<shell> (line `.
    fish_line: String,
    shell_line: String,
    /// Lines fish adds about the sourced file: dropped.
    fish_lines: [String; 2],
}

/// How a command ended, from the markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finish {
    /// Its exit status (`$?`).
    pub status: i32,
    /// The shell aborted the line (no `D`; the status is the prompt's `$?`).
    pub aborted: bool,
    /// Neither `D` nor a prompt came, but the shell answered a probe line
    /// written after the command: the command is over, its status unknown
    /// (`status` is 0), and the shell's markers cannot be trusted.
    pub lost: bool,
}

/// The marker state machine of one shell: which output belongs to the
/// command, and when the command ended.
///
/// Output of the command is stripped of escape sequences with a
/// [`Stripper`] (`\r\n` becomes `\n`, `\r` and backspace are applied to the
/// line), so text comes out line by line; the unfinished last line comes out
/// when the command ends (or once it is longer than 1 MiB).
#[derive(Debug, Clone)]
pub struct Tracker {
    parser: MarkerParser,
    phase: Phase,
    stripper: Stripper,
    output: HeadTail,
    finish: Option<Finish>,
    pieces: Vec<Piece>,
    /// The tail of what was dropped (not command output), for diagnostics.
    discarded: String,
    /// Command output fed since the stripper last completed a line.
    line_bytes: usize,
    /// The running command's file as the shell's messages name it, made
    /// ready once per command (see [`Tracker::name_file`]).
    file: Option<FileNames>,
    /// A stop of the command began ([`Tracker::stopping`]).
    stopping: bool,
    /// Since then: lines that may be the shell's report on the stopped job,
    /// held back until other output follows them (then they are the
    /// command's) or the command ends (then they are dropped).
    held: String,
    /// A `D` marker came and the driver has not sent a secret for it yet.
    confirm: bool,
    /// The secrets sent for this command's `D` markers: an `E` marker must
    /// carry one. (After a `D` the command printed, the shell may read that
    /// secret rather than the one sent for its own `D`; both were sent after
    /// a `D`, while the command printed nothing it could use.)
    secrets: Vec<u128>,
    /// Output since the last `D` (see [`Phase::Ending`]).
    ending: String,
    /// Text ptypilot put in front of the command's first line
    /// ([`file_prefix`](super::script::file_prefix)), removed where the
    /// shell shows it (`set -v`, a syntax error's quote of the line).
    prefix: Option<String>,
    /// Where the last probe line is (see [`Probe`]).
    probe: Probe,
    /// The number of the last probe line written.
    probe_id: Option<u64>,
    /// Its probe marker came (so `printf` still prints markers).
    probe_printed: bool,
    /// A prompt came while a command was submitted or running: the line
    /// ended (interrupted, a syntax error) — or the command printed a
    /// prompt marker. A probe line tells which: the shell runs it only once
    /// it is back at the prompt.
    pending_abort: bool,
    /// A probe line is wanted to settle `pending_abort` (taken once).
    verify: bool,
    /// A prompt showed a probe's number but the probe marker never came:
    /// `printf` no longer prints markers; the shell must be replaced.
    broken: bool,
}

/// A probe line's progress: a line that only prints a [`Marker::Probe`],
/// written when the markers are overdue, to learn whether the shell still
/// reads and runs lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// None is outstanding (or the last one was followed by a prompt).
    Settled,
    /// Written; its marker has not come back.
    Sent(u64),
    /// Its marker came back, and no prompt after it (yet).
    Answered {
        /// When it came, a command was submitted or running and had not
        /// ended: the shell ran the probe line after the command, so the
        /// command is over without its end marker.
        during_command: bool,
    },
}

impl Tracker {
    /// A tracker for a shell that was just started with markers carrying `nonce`.
    pub fn new(nonce: &str) -> Self {
        Tracker {
            parser: MarkerParser::new(nonce),
            phase: Phase::Starting,
            stripper: Stripper::default(),
            output: HeadTail::new(DEFAULT_MAX_OUTPUT),
            finish: None,
            pieces: Vec::new(),
            discarded: String::new(),
            line_bytes: 0,
            file: None,
            stopping: false,
            held: String::new(),
            probe: Probe::Settled,
            probe_id: None,
            probe_printed: false,
            pending_abort: false,
            verify: false,
            broken: false,
            confirm: false,
            secrets: Vec::new(),
            ending: String::new(),
            prefix: None,
        }
    }

    /// A probe line with number `id` was written.
    pub fn probe_sent(&mut self, id: u64) {
        self.probe = Probe::Sent(id);
        self.probe_id = Some(id);
        self.probe_printed = false;
    }

    /// Whether a probe line should be written now to learn whether a prompt
    /// that came during a command was the shell's (taken once).
    pub fn take_verify(&mut self) -> bool {
        std::mem::take(&mut self.verify)
    }

    /// The shell's `printf` no longer prints markers: replace the shell.
    pub fn broken(&self) -> bool {
        self.broken
    }

    /// Where the last probe line is.
    pub fn probe(&self) -> Probe {
        self.probe
    }

    /// Whether a `D` marker came since the last call: the driver must then
    /// write a fresh secret line and pass the secret to
    /// [`Tracker::expect_secret`].
    pub fn take_confirm(&mut self) -> bool {
        std::mem::take(&mut self.confirm)
    }

    /// The secret for the last `D` was sent: an `E` marker that carries it
    /// ends the command.
    pub fn expect_secret(&mut self, secret: u128) {
        self.secrets.push(secret);
    }

    /// The command file starts with `prefix` on its first line.
    pub fn file_prefix(&mut self, prefix: String) {
        self.prefix = Some(prefix).filter(|p| !p.is_empty());
    }

    /// A stop of the running command began. From now on, what the shell
    /// prints about the stopped job at the end — the newline bash, dash and
    /// zsh print after a job died of SIGINT, `Terminated`, `Killed`,
    /// `zsh: terminated  <command>` — is left out of the output.
    pub fn stopping(&mut self) {
        self.stopping = true;
    }

    /// `out` without trailing lines that may be the shell's report on a
    /// stopped job (held back; see `held`).
    fn hold_stop_report(&mut self, out: String) -> String {
        if !self.stopping {
            return out;
        }
        let mut emit = String::new();
        for line in out.split_inclusive('\n') {
            match line.strip_suffix('\n') {
                Some(text) if is_stop_report(text) => self.held.push_str(line),
                _ => {
                    emit.push_str(&self.held);
                    self.held.clear();
                    emit.push_str(line);
                }
            }
        }
        emit
    }

    /// The command runs from `path` in a shell called `shell`: its messages
    /// about the command (`bash` `<path>: line 1: x: command not found`, `zsh`
    /// `<path>:1: ...`, `dash` `dash: 1: <path>: x: not found`, fish
    /// `<path> (line 1): ...` and `from sourcing file <path>`) read as they
    /// would for a command typed at the prompt (`bash: line 1: ...`,
    /// `zsh:1: ...`, `dash: 1: x: not found`, `fish (line 1): ...`).
    pub fn name_file(&mut self, path: &str, shell: &str) {
        self.file = Some(FileNames {
            path: path.to_owned(),
            inner: format!(": {path}: "),
            colon: format!("{path}:"),
            shell_colon: format!("{shell}:"),
            fish_line: format!("{path} (line "),
            shell_line: format!("{shell} (line "),
            fish_lines: [
                format!("from sourcing file {path}\n"),
                format!("source: Error while reading file '{path}'\n"),
            ],
        });
    }

    /// `out` with the command file's name replaced (see [`Tracker::name_file`])
    /// and ptypilot's prefix of its first line removed.
    fn unname_file(&self, out: String) -> String {
        let mut out = match &self.prefix {
            Some(prefix) if out.contains(prefix.as_str()) => out.replace(prefix.as_str(), ""),
            _ => out,
        };
        let Some(names) = self.file.as_ref().filter(|n| out.contains(n.path.as_str())) else {
            return out;
        };
        for line in &names.fish_lines {
            if out.contains(line.as_str()) {
                out = out.replace(line.as_str(), "");
            }
        }
        // Every other form has a colon right after the path.
        out.replace(names.fish_line.as_str(), &names.shell_line)
            .replace(names.inner.as_str(), ": ")
            .replace(names.colon.as_str(), &names.shell_colon)
    }

    /// The phase now.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The command runs, as far as the markers tell: it started, and
    /// neither its end (`D`) nor a prompt came since.
    pub fn command_running(&self) -> bool {
        self.phase == Phase::Running && !self.pending_abort
    }

    /// Takes terminal output; returns the command output (stripped) it
    /// completed, which is also kept for [`Tracker::take_output`].
    pub fn feed(&mut self, text: &str) -> String {
        let mut pieces = std::mem::take(&mut self.pieces);
        self.parser.feed(text, &mut pieces);
        let mut out = String::new();
        for piece in pieces.drain(..) {
            self.step(piece, &mut out);
        }
        self.pieces = pieces;
        let out = self.unname_file(out);
        let out = self.hold_stop_report(out);
        self.output.push(&out);
        out
    }

    /// The output stream ended (the shell exited): releases what was held
    /// back and returns the command output it completed.
    pub fn end_of_stream(&mut self) -> String {
        let mut pieces = Vec::new();
        self.parser.flush(&mut pieces);
        let mut out = String::new();
        for piece in pieces {
            self.step(piece, &mut out);
        }
        if matches!(self.phase, Phase::Running | Phase::Ending) {
            let text = std::mem::take(&mut self.ending);
            self.command_text(&text, &mut out);
            self.stripper.flush_line(&mut out);
        }
        let out = self.unname_file(out);
        let out = self.hold_stop_report(out);
        self.output.push(&out);
        out
    }

    /// A run line was written: output from the `C` marker on is the
    /// command's, kept up to `max_output` bytes.
    pub fn submit(&mut self, max_output: usize) {
        self.phase = Phase::Submitted;
        self.stripper = Stripper::default();
        self.line_bytes = 0;
        self.output = HeadTail::new(max_output);
        self.finish = None;
        self.stopping = false;
        self.held.clear();
        self.confirm = false;
        self.secrets.clear();
        self.ending.clear();
        self.pending_abort = false;
        self.verify = false;
    }

    /// How the command ended, once it has (taken once).
    pub fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    /// The command's output and whether part of it was left out.
    pub fn take_output(&mut self) -> (String, bool) {
        self.held.clear();
        std::mem::replace(&mut self.output, HeadTail::new(0)).text()
    }

    /// The last dropped output (prompts, echo, start-up messages), stripped.
    pub fn discarded(&self) -> String {
        crate::core::transcript::strip(&self.discarded)
    }

    fn step(&mut self, piece: Piece, out: &mut String) {
        let in_command = matches!(
            self.phase,
            Phase::Submitted | Phase::Running | Phase::Ending
        );
        if let Piece::Marker(Marker::Prompt {
            probe: Some((id, _)),
            ..
        }) = piece
            && self.probe_id == Some(id)
            && self.probe != Probe::Settled
        {
            // The shell ran our probe line: its prompt shows the number.
            self.probe = Probe::Settled;
            if !self.probe_printed {
                // ... but the probe marker never came: `printf` is not what
                // it was (a command redefined it), and no marker can be
                // trusted from now on.
                self.broken = true;
                if in_command {
                    self.end_lost(out);
                    self.phase = Phase::Idle;
                    return;
                }
            }
        }
        if matches!(piece, Piece::Marker(Marker::Prompt { .. }))
            && matches!(self.probe, Probe::Answered { .. })
        {
            self.probe = Probe::Settled;
        }
        match (self.phase, piece) {
            (Phase::Running, Piece::Text(text)) => self.command_text(&text, out),
            (Phase::Ending, Piece::Text(text)) => {
                self.ending.push_str(&text);
                if self.ending.len() > ENDING_KEPT {
                    // More than the shell's tail: the `D` was the command's.
                    self.phase = Phase::Running;
                    let text = std::mem::take(&mut self.ending);
                    self.command_text(&text, out);
                }
            }
            (_, Piece::Text(text)) => self.discard(&text),
            (Phase::Running | Phase::Ending, Piece::Marker(Marker::Done)) => {
                // After a `D` the command printed, what followed was its
                // output too; a new secret is needed either way. A prompt
                // marker before it was the command's too.
                let text = std::mem::take(&mut self.ending);
                self.command_text(&text, out);
                self.phase = Phase::Ending;
                self.confirm = true;
                self.pending_abort = false;
                self.verify = false;
            }
            (Phase::Ending, Piece::Marker(Marker::End { status, secret }))
                if self.secrets.contains(&secret) =>
            {
                // What came between `D` and `E` was the shell's (the echo of
                // the secret line, were echo on).
                self.ending.clear();
                self.stripper.flush_line(out);
                self.finish = Some(Finish {
                    status,
                    aborted: false,
                    lost: false,
                });
                self.secrets.clear();
                self.pending_abort = false;
                self.verify = false;
                self.phase = Phase::AwaitPrompt;
            }
            (
                Phase::Running | Phase::Submitted | Phase::Ending,
                Piece::Marker(Marker::Prompt { .. }),
            ) => {
                // Not the end yet: a command can print this marker. A probe
                // line settles it (see `pending_abort`).
                if !self.pending_abort {
                    self.pending_abort = true;
                    self.verify = self.probe == Probe::Settled;
                }
            }
            (Phase::Submitted, Piece::Marker(Marker::Start)) => self.phase = Phase::Running,
            (_, Piece::Marker(Marker::Prompt { .. })) => self.phase = Phase::Idle,
            (phase, Piece::Marker(Marker::Probe { id, status })) => {
                if self.probe == Probe::Sent(id) {
                    self.probe_printed = true;
                    let during_command = in_command;
                    if during_command {
                        if self.pending_abort {
                            // The shell was back at its prompt: the line was
                            // aborted, with the status the probe saw.
                            self.flush_command(phase, out);
                            self.finish = Some(Finish {
                                status,
                                aborted: true,
                                lost: false,
                            });
                            self.clear_command();
                            self.phase = Phase::AwaitPrompt;
                        } else {
                            self.end_lost(out);
                            self.phase = Phase::AwaitPrompt;
                        }
                    }
                    self.probe = Probe::Answered { during_command };
                }
            }
            // A start, done or end outside its place (a stray line, an end
            // without the secret): nothing to do.
            (_, Piece::Marker(_)) => {}
        }
    }

    /// Releases what the command printed up to now (after a `D`, held).
    fn flush_command(&mut self, phase: Phase, out: &mut String) {
        if phase != Phase::Submitted {
            let text = std::mem::take(&mut self.ending);
            self.command_text(&text, out);
            self.stripper.flush_line(out);
        }
    }

    fn clear_command(&mut self) {
        self.secrets.clear();
        self.confirm = false;
        self.pending_abort = false;
        self.verify = false;
    }

    /// The command is over, but its end markers were lost: status unknown.
    fn end_lost(&mut self, out: &mut String) {
        self.flush_command(self.phase, out);
        self.finish = Some(Finish {
            status: 0,
            aborted: false,
            lost: true,
        });
        self.clear_command();
    }

    /// Command output text.
    fn command_text(&mut self, text: &str, out: &mut String) {
        let before = out.len();
        self.stripper.feed(text, out);
        if out[before..].contains('\n') {
            self.line_bytes = 0;
        } else {
            self.line_bytes += text.len();
            if self.line_bytes > LONG_LINE {
                self.stripper.flush_line(out);
                self.line_bytes = 0;
            }
        }
    }

    fn discard(&mut self, text: &str) {
        self.discarded.push_str(text);
        if self.discarded.len() > 2 * DISCARDED_KEPT {
            let mut cut = self.discarded.len() - DISCARDED_KEPT;
            while !self.discarded.is_char_boundary(cut) {
                cut += 1;
            }
            self.discarded.drain(..cut);
        }
    }
}

/// A line a shell prints about a job it saw die of a stop signal: the empty
/// line after SIGINT, bash's and dash's `Terminated` / `Killed`, zsh's
/// `zsh: terminated  <command>`, fish's `fish: Job 1, '<command>'
/// terminated by signal SIGTERM (Polite quit request)`.
pub(super) fn is_stop_report(line: &str) -> bool {
    matches!(line, "" | "Terminated" | "Killed")
        || line.starts_with("zsh: terminated ")
        || line.starts_with("zsh: killed ")
        || (line.starts_with("fish: Job ") && line.contains("' terminated by signal SIG"))
}

#[cfg(test)]
mod tests {
    use super::super::markers::testing::*;
    use super::*;

    /// Feeds the end of a command as the shell prints it: `D`, then (after
    /// the driver sent the secret) `E` and `extra` (the prompt, say).
    fn end(t: &mut Tracker, status: i32, extra: &str) -> String {
        let mut out = t.feed(&d());
        assert!(t.take_confirm(), "D asks for a secret");
        t.expect_secret(S);
        out.push_str(&t.feed(&format!("{}{extra}", e(status, S))));
        out
    }

    fn track(chunks: &[&str]) -> (Tracker, String) {
        let mut t = Tracker::new(N);
        let mut streamed = String::new();
        for chunk in chunks {
            streamed.push_str(&t.feed(chunk));
        }
        (t, streamed)
    }

    #[test]
    fn tracker_start_up_waits_for_the_marker_prompt() {
        let (t, out) = track(&["bash-5.2$ stty -echo\r\n", "bash-5.2$ "]);
        assert_eq!(t.phase(), Phase::Starting);
        assert!(out.is_empty());
        let (t, _) = track(&["bash-5.2$ ", &a(0)]);
        assert_eq!(t.phase(), Phase::Idle);
        assert!(t.discarded().contains("bash-5.2$"));
    }

    #[test]
    fn tracker_keeps_exactly_the_command_output() {
        let text = format!(
            "echo of the line\r\n{}one\r\n\x1b[31mtwo\x1b[0m\r\nno newline{}",
            c(),
            d()
        );
        let rest = format!("{}{}", e(3, S), a(0));
        // Every split gives the same streamed text and result.
        for i in (1..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut t = Tracker::new(N);
            t.feed(&a(0));
            t.submit(DEFAULT_MAX_OUTPUT);
            let mut streamed = t.feed(&text[..i]);
            streamed.push_str(&t.feed(&text[i..]));
            assert_eq!(t.phase(), Phase::Ending);
            assert!(t.take_confirm());
            assert!(!t.take_confirm(), "asked once");
            t.expect_secret(S);
            for j in (1..rest.len()).step_by(11) {
                let mut t = t.clone();
                let mut streamed = streamed.clone();
                streamed.push_str(&t.feed(&rest[..j]));
                streamed.push_str(&t.feed(&rest[j..]));
                assert_eq!(streamed, "one\ntwo\nno newline", "split at {i}, {j}");
                assert_eq!(
                    t.take_finish(),
                    Some(Finish {
                        status: 3,
                        aborted: false,
                        lost: false,
                    })
                );
                assert_eq!(t.take_output(), ("one\ntwo\nno newline".to_owned(), false));
                assert_eq!(t.phase(), Phase::Idle);
            }
        }
    }

    #[test]
    fn tracker_ends_only_at_the_end_marker_with_the_secret() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}one\r\n", c()));
        // The command prints a done marker and an end marker it made up.
        out.push_str(&t.feed(&format!("{}{}", d(), e(42, 0x1234))));
        assert!(t.take_confirm());
        t.expect_secret(S);
        // An end marker with a secret never sent ends nothing.
        out.push_str(&t.feed(&format!("two\r\n{}", e(42, 0x1234))));
        assert_eq!(t.take_finish(), None);
        assert_eq!(t.phase(), Phase::Ending);
        // Then the real end: the output after the forged `D` was the command's.
        out.push_str(&end(&mut t, 0, &a(0)));
        assert_eq!(out, "one\ntwo\n");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 0,
                aborted: false,
                lost: false,
            })
        );
        assert_eq!(t.take_output().0, "one\ntwo\n");
    }

    #[test]
    fn tracker_drops_the_echo_of_the_secret_line() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}x\r\n{}", c(), d()));
        assert!(t.take_confirm());
        t.expect_secret(S);
        out.push_str(&t.feed(&format!("{S:032x}\r\n{}{}", e(0, S), a(0))));
        assert_eq!(out, "x\n");
    }

    #[test]
    fn tracker_releases_a_long_ending_as_output() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}{}", c(), d()));
        let line = format!("{}\r\n", "y".repeat(1023));
        for _ in 0..80 {
            out.push_str(&t.feed(&line));
        }
        assert_eq!(t.phase(), Phase::Running);
        assert_eq!(out.len(), 80 * 1024);
    }

    #[test]
    fn tracker_removes_the_file_prefix_where_the_shell_shows_it() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let prefix = crate::core::shell::script::file_prefix(
            crate::core::shell::ShellKind::Bash,
            std::path::Path::new("/tmp/d"),
        );
        t.file_prefix(prefix.clone());
        let line = format!("{prefix}echo hi\r\n");
        let out = t.feed(&format!("{}{line}hi\r\n", c()));
        assert_eq!(out, "echo hi\nhi\n");
    }

    #[test]
    fn tracker_ends_an_aborted_line_at_the_prompt_once_a_probe_confirms_it() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}partial^C\r\n{}", c(), a(130)));
        // A prompt alone ends nothing: a command can print one.
        assert_eq!(t.take_finish(), None);
        assert!(t.take_verify(), "a probe is wanted");
        assert!(!t.take_verify(), "once");
        t.probe_sent(77);
        out.push_str(&t.feed(&format!("{}{}", p(77, 130), a_probe(0, 77, 130))));
        assert_eq!(out, "partial^C\n");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 130,
                aborted: true,
                lost: false,
            })
        );
        assert_eq!(t.phase(), Phase::Idle);
        assert_eq!(t.probe(), Probe::Settled);
        assert!(!t.broken());
        // Aborted before the command even started.
        t.submit(DEFAULT_MAX_OUTPUT);
        assert_eq!(t.feed(&a(2)), "");
        assert!(t.take_verify());
        t.probe_sent(78);
        t.feed(&format!("{}{}", p(78, 2), a_probe(0, 78, 2)));
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 2,
                aborted: true,
                lost: false,
            })
        );
    }

    #[test]
    fn tracker_keeps_the_command_running_after_a_prompt_it_printed() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}one\r\n{}two\r\n", c(), a(7)));
        assert!(t.take_verify());
        t.probe_sent(5);
        // The command goes on and ends with its `D` and `E`.
        out.push_str(&end(&mut t, 3, ""));
        assert_eq!(out, "one\ntwo\n");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 3,
                aborted: false,
                lost: false,
            })
        );
        // The shell reads the probe line after the run line: its answer
        // and the prompt that shows its number come after the end.
        assert_eq!(t.probe(), Probe::Sent(5));
        assert_eq!(t.feed(&format!("{}{}", p(5, 0), a_probe(0, 5, 0))), "");
        assert_eq!(t.probe(), Probe::Settled);
        assert!(!t.broken());
        // A forged probe answer with a guessed number does nothing either.
        t.submit(DEFAULT_MAX_OUTPUT);
        t.feed(&format!("{}{}{}x\r\n", c(), a(1), p(1, 9)));
        assert!(t.take_verify());
        t.probe_sent(0xdead);
        t.feed(&format!("{}{}", p(1, 9), a_probe(0, 1, 9)));
        assert_eq!(t.take_finish(), None);
        assert_eq!(t.phase(), Phase::Running);
    }

    #[test]
    fn tracker_detects_a_printf_that_no_longer_prints_markers() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        // The command redefined `command`: no `D`, then the prompt.
        let mut out = t.feed(&format!("{}hijacked\r\n{}", c(), a(0)));
        assert!(t.take_verify());
        t.probe_sent(9);
        // The probe's prompt shows its number, but no probe marker came.
        out.push_str(&t.feed(&a_probe(0, 9, 0)));
        assert_eq!(out, "hijacked\n");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 0,
                aborted: false,
                lost: true,
            })
        );
        assert!(t.broken());
        assert_eq!(t.phase(), Phase::Idle);
    }

    #[test]
    fn tracker_ignores_faked_markers_in_output() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let fake = "\x1b]133;D;deadbeefdeadbeefdeadbeefdeadbeef\x07";
        let out = t.feed(&format!("{}before{fake}after\r\n", c()));
        assert_eq!(out, "beforeafter\n");
        assert_eq!(t.take_finish(), None);
        assert_eq!(t.phase(), Phase::Running);
    }

    #[test]
    fn tracker_drops_output_between_commands() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.feed(&format!("{}x\r\n", c()));
        end(&mut t, 0, "[1]+  Done   sleep 1\r\n");
        assert_eq!(t.take_output().0, "x\n");
        assert_eq!(t.phase(), Phase::AwaitPrompt);
        assert_eq!(t.feed(&format!("late\r\n{}", a(0))), "");
        assert_eq!(t.phase(), Phase::Idle);
    }

    #[test]
    fn tracker_names_the_shell_instead_of_the_command_file() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.name_file("/tmp/d/cmd-4", "sh");
        let out = t.feed(&format!(
            "{}/tmp/d/cmd-4: line 1: x: command not found\r\n\
             sh: 2: /tmp/d/cmd-4: y: not found\r\n\
             /tmp/d/cmd-4:3: parse error\r\n\
             cat /tmp/d/cmd-40\r\n",
            c(),
        ));
        let out = out + &end(&mut t, 2, &a(2));
        assert_eq!(
            out,
            "sh: line 1: x: command not found\nsh: 2: y: not found\nsh:3: parse error\ncat /tmp/d/cmd-40\n"
        );
        assert_eq!(t.take_output().0, out);
        // fish's forms.
        t.submit(DEFAULT_MAX_OUTPUT);
        t.name_file("/tmp/d/cmd-5", "fish");
        let out = t.feed(&format!(
            "{}fish: Unknown command: x\r\n/tmp/d/cmd-5 (line 2): \r\nx\r\n^\r\n\
             from sourcing file /tmp/d/cmd-5\r\n\
             source: Error while reading file '/tmp/d/cmd-5'\r\n",
            c(),
        ));
        assert_eq!(out, "fish: Unknown command: x\nfish (line 2): \nx\n^\n");
    }

    #[test]
    fn tracker_leaves_out_the_shells_report_on_a_stopped_job() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}before\r\n\r\n", c()));
        // Not stopping yet: a blank line is output like any other.
        assert_eq!(out, "before\n\n");
        t.stopping();
        // A report followed by more output was the command's after all.
        out.push_str(&t.feed("\r\nTerminated\r\nstill running\r\n"));
        out.push_str(&t.feed("\r\nTerminated\r\nzsh: terminated  sleep 9\r\nKilled\r\n"));
        out.push_str(&end(&mut t, 130, &a(130)));
        assert_eq!(out, "before\n\n\nTerminated\nstill running\n");
        assert_eq!(t.take_output().0, out);
        // The next command starts without a stop.
        t.submit(DEFAULT_MAX_OUTPUT);
        let out = t.feed(&format!("{}x\r\n\r\n", c())) + &end(&mut t, 0, &a(0));
        assert_eq!(out, "x\n\n");
    }

    #[test]
    fn tracker_flushes_the_last_line_when_the_shell_exits() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}bye\r\nexit", c()));
        out.push_str(&t.end_of_stream());
        assert_eq!(out, "bye\nexit");
        assert_eq!(t.take_finish(), None);
    }

    #[test]
    fn output_is_bounded_head_and_tail() {
        let mut t = Tracker::new(N);
        t.feed(&a(0));
        t.submit(100);
        let body: String = (0..100).map(|i| format!("{i:03}\r\n")).collect();
        t.feed(&format!("{}{body}", c()));
        end(&mut t, 0, "");
        let (output, truncated) = t.take_output();
        assert!(truncated);
        assert!(output.starts_with("000\n001\n"));
        assert!(output.ends_with("098\n099\n"));
        assert!(output.contains("bytes of output omitted"));
    }

    #[test]
    fn an_endless_line_comes_out_in_pieces() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.feed(&c());
        let chunk = "x".repeat(64 << 10);
        let mut out = String::new();
        for _ in 0..40 {
            out.push_str(&t.feed(&chunk));
        }
        // 2.5 MiB fed: at least two pieces came out before the end.
        assert!(out.len() >= 2 * LONG_LINE, "{}", out.len());
        out.push_str(&end(&mut t, 0, ""));
        assert_eq!(out.len(), 40 * chunk.len());
    }
}
