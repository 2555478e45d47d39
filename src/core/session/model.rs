//! The session's screen model behind the panic boundary.
//!
//! Every call into the [`Screen`] — feeding output, snapshots, text, modes,
//! resizes — runs under [`guard::catch`]. The model parses whatever a program
//! prints, and a panic in it (a bug of the emulator, met by an unusual
//! sequence) must not take the session down: on the session thread it would
//! end the thread before the exit is published, on the JS thread it aborts
//! the process. When a call panics:
//!
//! - the model is thrown away (it may be half-changed) and rebuilt by
//!   replaying the end of the transcript (at most [`REPLAY_LIMIT`] bytes,
//!   [`REPLAY_LIMIT_AFTER_MANY`] once a session had many incidents) in pieces,
//!   each under the boundary; a piece that panics again is skipped and the
//!   replay goes on from a blank model. The output being fed when the panic
//!   came is not in the transcript yet, so it is skipped;
//! - the incident is recorded on the session ([`ScreenIncident`], the first
//!   [`INCIDENTS_KEPT`]) and reported ([`guard::report`]: a process warning in
//!   Node) for the first [`INCIDENTS_REPORTED`] of a session;
//! - the call is answered from the rebuilt model (a blank one if that panics
//!   too).
//!
//! The output itself — the transcript, the listener's data, the exit — does
//! not go through the model and is never lost.

use std::sync::atomic::{AtomicU64, Ordering};

use super::super::guard;
use super::super::screen::{Modes, Screen, StyledRun, View};
use super::super::transcript::{ReadOptions, Transcript};

/// Most transcript bytes replayed to rebuild the model.
pub const REPLAY_LIMIT: usize = 1 << 20;
/// The replay limit once a session had [`MANY_INCIDENTS`] incidents: a
/// program that trips the model over and over must not cost a full replay
/// each time.
pub const REPLAY_LIMIT_AFTER_MANY: usize = 64 << 10;
/// See [`REPLAY_LIMIT_AFTER_MANY`].
const MANY_INCIDENTS: u64 = 10;
/// Replayed output is fed in pieces of this size, each under the boundary.
const REPLAY_PIECE: usize = 4 << 10;
/// Incidents kept per session.
pub const INCIDENTS_KEPT: usize = 100;
/// Incidents reported (as process warnings) per session.
pub const INCIDENTS_REPORTED: u64 = 3;

/// A panic of the screen model that the session contained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenIncident {
    /// What happened, for people: the operation, the panic message and
    /// location, and what was done about it.
    pub message: String,
    /// Output bytes processed when it happened (the session's `seq`).
    pub seq: u64,
}

/// Where generations come from (see [`Model::generation`]): one counter for
/// the process, so that no two states of any models share one — not the
/// model rebuilt after a panic and the one before it, not the next run's
/// model and the last run's.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed)
}

/// The screen model of a session, every call guarded.
pub(super) struct Model {
    screen: Screen,
    /// See [`Model::generation`].
    generation: u64,
    rows: u16,
    cols: u16,
    scrollback: usize,
    incidents: Vec<ScreenIncident>,
    /// Incidents so far (also those not kept).
    count: u64,
}

impl Model {
    /// A blank model (see [`Screen::new`]).
    pub(super) fn new(rows: u16, cols: u16, scrollback: usize) -> Self {
        Model {
            screen: Screen::new(rows, cols, scrollback),
            generation: next_generation(),
            rows,
            cols,
            scrollback,
            incidents: Vec::new(),
            count: 0,
        }
    }

    /// Feeds output (see [`Screen::process`]). After a panic the model is
    /// rebuilt from `transcript`, which does not hold `bytes` yet: they are
    /// skipped, and `replies` gets nothing from them.
    pub(super) fn process(
        &mut self,
        bytes: &[u8],
        replies: &mut Vec<u8>,
        transcript: &Transcript,
        seq: u64,
    ) {
        self.generation = next_generation();
        let screen = &mut self.screen;
        let fed = guard::catch(|| {
            guard::test_hook::check(bytes);
            let mut answers = Vec::new();
            screen.process(bytes, &mut answers);
            answers
        });
        match fed {
            Ok(answers) => replies.extend_from_slice(&answers),
            Err(incident) => self.recover(incident, "processing output", transcript, seq),
        }
    }

    /// Changes whenever what the model shows may have changed: output was
    /// fed, the size changed, the model was rebuilt. Equal generations (of
    /// any two models of the process) mean equal views; reading the model
    /// (views, text, modes, styles) leaves it as it is.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// A view (see [`Screen::view`]).
    pub(super) fn view(&mut self, transcript: &Transcript, seq: u64) -> View {
        self.call(
            "taking a snapshot",
            transcript,
            seq,
            Screen::view,
            blank_view,
        )
    }

    /// A view and the styled runs of its rows, of one moment (see
    /// [`Screen::styled_rows`]); with `cells`, one run per cell (see
    /// [`Screen::styled_cells`]).
    pub(super) fn styled_view(
        &mut self,
        transcript: &Transcript,
        seq: u64,
        cells: bool,
    ) -> (View, Vec<Vec<StyledRun>>) {
        self.call(
            "taking a snapshot with attributes",
            transcript,
            seq,
            |s| {
                let rows = if cells {
                    s.styled_cells()
                } else {
                    s.styled_rows()
                };
                (s.view(), rows)
            },
            |rows, cols| (blank_view(rows, cols), vec![Vec::new(); usize::from(rows)]),
        )
    }

    /// The visible text (see [`Screen::text`]).
    pub(super) fn text(&mut self, transcript: &Transcript, seq: u64) -> String {
        self.call("reading the text", transcript, seq, Screen::text, |_, _| {
            String::new()
        })
    }

    /// The input modes (see [`Screen::modes`]).
    pub(super) fn modes(&mut self, transcript: &Transcript, seq: u64) -> Modes {
        self.call(
            "reading the modes",
            transcript,
            seq,
            |s| s.modes(),
            |_, _| Modes::default(),
        )
    }

    /// Inside a synchronized-output block (see [`Screen::synchronized`]).
    pub(super) fn synchronized(&mut self, transcript: &Transcript, seq: u64) -> bool {
        self.call(
            "reading the modes",
            transcript,
            seq,
            |s| s.synchronized(),
            |_, _| false,
        )
    }

    /// Resizes (see [`Screen::resize`]).
    pub(super) fn resize(&mut self, rows: u16, cols: u16, transcript: &Transcript, seq: u64) {
        // The rebuild after a panic uses the new size.
        (self.rows, self.cols) = (rows, cols);
        self.generation = next_generation();
        self.call(
            "resizing",
            transcript,
            seq,
            |s| s.resize(rows, cols),
            |_, _| (),
        );
    }

    /// The incidents so far (the first [`INCIDENTS_KEPT`]).
    pub(super) fn incidents(&self) -> &[ScreenIncident] {
        &self.incidents
    }

    /// Runs `f` on the screen; after a panic, rebuilds it and runs `f` on the
    /// rebuilt one, and if that panics too, answers `blank(rows, cols)` from a
    /// blank model.
    fn call<T>(
        &mut self,
        during: &str,
        transcript: &Transcript,
        seq: u64,
        f: impl Fn(&mut Screen) -> T,
        blank: impl FnOnce(u16, u16) -> T,
    ) -> T {
        let screen = &mut self.screen;
        match guard::catch(|| f(screen)) {
            Ok(value) => value,
            Err(incident) => {
                self.recover(incident, during, transcript, seq);
                let screen = &mut self.screen;
                match guard::catch(|| f(screen)) {
                    Ok(value) => value,
                    Err(_) => {
                        self.screen = Screen::new(self.rows, self.cols, self.scrollback);
                        self.generation = next_generation();
                        blank(self.rows, self.cols)
                    }
                }
            }
        }
    }

    /// Records and reports the incident, and rebuilds the model.
    fn recover(
        &mut self,
        incident: guard::Incident,
        during: &str,
        transcript: &Transcript,
        seq: u64,
    ) {
        self.count += 1;
        let limit = if self.count > MANY_INCIDENTS {
            REPLAY_LIMIT_AFTER_MANY
        } else {
            REPLAY_LIMIT
        };
        let (screen, replayed) = rebuild(self.rows, self.cols, self.scrollback, transcript, limit);
        self.screen = screen;
        self.generation = next_generation();
        let thread = std::thread::current();
        let mut message = format!(
            "the screen model panicked while {during} at output byte {seq} (on {}): {}; \
             it was rebuilt from the last {replayed} bytes of output, without the output that caused it",
            thread.name().unwrap_or("a JS thread"),
            incident.message,
        );
        if self.count <= INCIDENTS_REPORTED {
            if self.count == INCIDENTS_REPORTED {
                message.push_str(" (further incidents of this session are not reported)");
            }
            guard::report(&message);
        }
        if self.incidents.len() < INCIDENTS_KEPT {
            self.incidents.push(ScreenIncident { message, seq });
        }
    }
}

/// A model of `rows` x `cols` that has seen the last `limit` bytes of the
/// transcript (from a line start where there is one), and how many bytes it
/// replayed.
fn rebuild(
    rows: u16,
    cols: u16,
    scrollback: usize,
    transcript: &Transcript,
    limit: usize,
) -> (Screen, usize) {
    let since = transcript.end().saturating_sub(limit as u64);
    let text = transcript
        .read(&ReadOptions {
            since: Some(since.max(transcript.start())),
            tail: None,
            raw: true,
        })
        .map(|r| r.text)
        .unwrap_or_default();
    let mut bytes = text.as_bytes();
    if since > transcript.start()
        && let Some(nl) = bytes.iter().position(|&b| b == b'\n')
    {
        bytes = &bytes[nl + 1..];
    }
    let mut screen = Screen::new(rows, cols, scrollback);
    let mut replies = Vec::new();
    for piece in bytes.chunks(REPLAY_PIECE) {
        let fed = guard::catch(|| {
            guard::test_hook::check(piece);
            screen.process(piece, &mut replies);
        });
        replies.clear();
        if fed.is_err() {
            screen = Screen::new(rows, cols, scrollback);
        }
    }
    // Text may wait unparsed: parse it now, so a panic in it happens here.
    if guard::catch(|| screen.text()).is_err() {
        screen = Screen::new(rows, cols, scrollback);
    }
    (screen, bytes.len())
}

fn blank_view(rows: u16, cols: u16) -> View {
    View {
        text: String::new(),
        cursor_row: 0,
        cursor_col: 0,
        cursor_visible: true,
        cols,
        rows,
        alt_screen: false,
        title: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(model: &mut Model, transcript: &mut Transcript, seq: &mut u64, bytes: &[u8]) {
        model.process(bytes, &mut Vec::new(), transcript, *seq);
        transcript.push(std::str::from_utf8(bytes).unwrap());
        *seq += bytes.len() as u64;
    }

    #[test]
    fn a_panic_while_feeding_skips_that_output_and_keeps_the_rest() {
        let needle = b"\x1b]9999;guard-model-test\x07";
        guard::test_hook::set(needle, true);
        let mut model = Model::new(5, 20, 10);
        let mut transcript = Transcript::new(1 << 20);
        let mut seq = 0;
        feed(&mut model, &mut transcript, &mut seq, b"one\r\ntwo\r\n");
        let mut bad = b"LOST".to_vec();
        bad.extend_from_slice(needle);
        model.process(&bad, &mut Vec::new(), &transcript, seq);
        // The transcript keeps it; the model skipped it.
        transcript.push(std::str::from_utf8(&bad).unwrap());
        seq += bad.len() as u64;
        feed(&mut model, &mut transcript, &mut seq, b"three\r\n");
        guard::test_hook::set(needle, false);
        assert_eq!(model.text(&transcript, seq), "one\ntwo\nthree");
        let incidents = model.incidents();
        assert_eq!(incidents.len(), 1);
        assert_eq!(incidents[0].seq, 10);
        assert!(
            incidents[0].message.contains("forced panic (test hook)"),
            "{}",
            incidents[0].message
        );
    }

    #[test]
    fn the_vs16_corner_output_cannot_take_the_model_down() {
        // U+2764 U+FE0F at the bottom-right cell, then a character in the
        // last column of the row above: vt100 0.18.1 panics on it.
        let bytes = b"\x1b[24;80H\xe2\x9d\xa4\xef\xb8\x8f\x1b[23;80Hx";
        assert_eq!(bytes.len(), 23);
        let mut model = Model::new(24, 80, 100);
        let mut transcript = Transcript::new(1 << 20);
        feed(&mut model, &mut transcript, &mut 0, b"hello\r\n");
        let mut seq = 7;
        feed(&mut model, &mut transcript, &mut seq, bytes);
        feed(&mut model, &mut transcript, &mut seq, b"\x1b[1;1Hworld");
        let snapshot = model.view(&transcript, seq);
        assert_eq!(snapshot.text.lines().next(), Some("world"));
        assert_eq!(snapshot.rows, 24);
        for incident in model.incidents() {
            assert!(
                incident.message.contains("processing output"),
                "{}",
                incident.message
            );
        }
    }

    #[test]
    fn a_replay_that_panics_again_skips_the_piece_and_goes_on() {
        let needle = b"\x1b]9999;guard-replay-test\x07";
        let mut transcript = Transcript::new(1 << 20);
        transcript.push("gone\r\n");
        transcript.push(std::str::from_utf8(needle).unwrap());
        transcript.push("\r\nkept\r\n");
        guard::test_hook::set(needle, true);
        let (mut screen, replayed) = rebuild(5, 20, 10, &transcript, REPLAY_LIMIT);
        guard::test_hook::set(needle, false);
        assert_eq!(replayed, transcript.len());
        // One piece holds it all here: everything up to the end of the
        // panicking piece is gone.
        assert_eq!(screen.text(), "");
        let mut transcript = Transcript::new(1 << 20);
        transcript.push(std::str::from_utf8(needle).unwrap());
        transcript.push(&"x".repeat(REPLAY_PIECE));
        transcript.push("\r\nafter\r\n");
        guard::test_hook::set(needle, true);
        let (mut screen, _) = rebuild(5, 20, 10, &transcript, REPLAY_LIMIT);
        guard::test_hook::set(needle, false);
        assert!(screen.text().ends_with("after"), "{:?}", screen.text());
    }

    #[test]
    fn the_generation_changes_with_output_resizes_and_rebuilds_only() {
        let mut model = Model::new(5, 20, 10);
        let mut transcript = Transcript::new(1 << 20);
        let mut seq = 0;
        let mut seen = vec![model.generation()];
        let mut changed = |model: &Model, what: &str| {
            assert!(
                !seen.contains(&model.generation()),
                "{what}: a generation again"
            );
            seen.push(model.generation());
        };
        feed(&mut model, &mut transcript, &mut seq, b"one\r\n");
        changed(&model, "output");
        // Reading changes nothing.
        let generation = model.generation();
        assert_eq!(model.view(&transcript, seq).text, "one");
        model.text(&transcript, seq);
        model.modes(&transcript, seq);
        model.synchronized(&transcript, seq);
        model.styled_view(&transcript, seq, false);
        assert_eq!(model.generation(), generation);
        // Output that changes nothing visible still counts.
        feed(&mut model, &mut transcript, &mut seq, b"\x1b[m");
        changed(&model, "colours");
        model.resize(6, 20, &transcript, seq);
        changed(&model, "resize");
        // A rebuild after a panic.
        let needle = b"\x1b]9999;guard-generation-test\x07";
        guard::test_hook::set(needle, true);
        model.process(needle, &mut Vec::new(), &transcript, seq);
        guard::test_hook::set(needle, false);
        assert_eq!(model.incidents().len(), 1);
        changed(&model, "rebuild");
        // Another model never has one of these.
        let other = Model::new(5, 20, 10);
        changed(&other, "another model");
    }
}
