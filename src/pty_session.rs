//! `PtySession` binding: converts options, calls the core session, maps errors.
//! Beside it: `start_options` (what `start()` reads) and `objects` (the plain
//! objects its methods return).
//!
//! The JS class `PtySession` (index.js) wraps this `NativeSession`. Output and
//! the exit reach JS through one threadsafe function, the *pump*, so they
//! arrive in order: every `data` call comes before the `exit` call. The pump
//! keeps the event loop alive while the program runs and is released right
//! after the exit was delivered.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{
    ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode,
};
use napi_derive::napi;

use crate::cancel::CancelToken;
use crate::core::keys::{self, KeyModes};
use crate::core::proc_tree::parse_signal;
use crate::core::screen;
use crate::core::session::{self, EventSink, ScreenVersion, Session, SpawnOptions};
use crate::core::time;
use crate::core::transcript::ReadOptions;
use crate::core::{Error as CoreError, ErrorCode};
use crate::error::{IntoJs, js_error};
use crate::incidents::contain;
use crate::options::Opts;

mod objects;
mod start_options;

use objects::{
    CapturedOutput, InputState, InputWait, PtyExit, PtyIncident, ReadResult, SandboxInfo,
    SettledSnapshot, WrittenInput,
};
pub use objects::{ScreenSnapshot, StyledScreen};
use start_options::{StartHow, spawn_options};

// The slots of `NativeSession::screen_frame`'s `frame` (index.js reads them
// by these numbers): the version, then the snapshot's numbers (booleans as
// 0 and 1).
const FRAME_GENERATION: usize = 0;
const FRAME_SEQ: usize = 1;
const FRAME_CURSOR_ROW: usize = 2;
const FRAME_CURSOR_COL: usize = 3;
const FRAME_CURSOR_VISIBLE: usize = 4;
const FRAME_COLS: usize = 5;
const FRAME_ROWS: usize = 6;
const FRAME_ALT_SCREEN: usize = 7;
/// Slots in a screen frame.
const FRAME_LEN: usize = 8;

/// Output and exit go to JS through this threadsafe function. The pump's
/// arguments: `(text | null, exit | null, raw | null)`; a call's text and raw
/// bytes come before its exit.
type PumpArgs = FnArgs<(Option<String>, Option<PtyExit>, Option<Uint8Array>)>;
/// The session's pump into JS; a weak one does not keep the event loop alive.
type Pump<const WEAK: bool> = ThreadsafeFunction<(), (), PumpArgs, Status, false, WEAK>;

struct PumpSink<const WEAK: bool>(Pump<WEAK>);

impl<const WEAK: bool> EventSink for PumpSink<WEAK> {
    fn wake(&self) {
        self.0.call((), ThreadsafeFunctionCallMode::NonBlocking);
    }
}

/// The native half of `PtySession`. Internal: use `PtySession` from the package.
#[napi]
#[derive(Default)]
pub struct NativeSession {
    session: Option<Session>,
    /// The keystroke fast path's watch on the terminal (see `fastpath`).
    watch: Option<u64>,
    /// Some listener takes output (text or raw): input is worth hurrying its
    /// answer for (the fast path).
    streaming: bool,
    /// The output position (`seq`) when input was last written: where
    /// `waitFor(..., { since: 'input' })` starts looking.
    input_seq: std::cell::Cell<u64>,
}

impl Drop for NativeSession {
    fn drop(&mut self) {
        if let Some(id) = self.watch.take() {
            crate::fastpath::close(id);
        }
    }
}

#[napi]
impl NativeSession {
    /// A session that has not started.
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        NativeSession::default()
    }

    /// Starts the program. `pump(text, exit, raw)` receives output (text when
    /// `streamOutput`, bytes when `streamRaw`) and finally the exit. Throws `ERR_ALREADY_RUNNING`,
    /// `ERR_INVALID_ARG` or `ERR_SPAWN`.
    #[napi(catch_unwind)]
    pub fn start(
        &mut self,
        env: &Env,
        options: Unknown,
        pump: Function<'_, PumpArgs, ()>,
        how: StartHow,
    ) -> Result<()> {
        self.check_idle(env)?;
        let mut opts = Opts::new(Some(options), "options").into_js(env)?;
        if opts.is_empty() {
            return Err(js_error(
                env,
                &CoreError::invalid_arg("options must be an object with a `command`"),
            ));
        }
        let base = how.base_env.map(|m| m.into_iter().collect());
        let mut spawn = spawn_options(&mut opts, base).into_js(env)?;
        opts.finish().into_js(env)?;
        spawn.stream_output = how.stream_output;
        spawn.stream_raw = how.stream_raw == Some(true);
        spawn.capture_limit = how.capture_limit.map(|n| n.max(0.0) as usize);
        if how.pipes == Some(true) {
            spawn.pipes = Some(session::PipeOptions {
                stdin: false,
                capture_stderr: true,
            });
        }
        self.launch(env, spawn, pump, how.keep_alive != Some(false))
    }

    /// Starts a program as `ptypilot/node-pty`'s `spawn` does (see
    /// `NodePtyStart`); `pump` as for `start`. Throws `ERR_ALREADY_RUNNING`,
    /// `ERR_INVALID_ARG` or `ERR_SPAWN` (the JS layer turns the last into
    /// node-pty's exit code 1).
    #[napi(catch_unwind)]
    pub fn start_node_pty(
        &mut self,
        env: &Env,
        options: crate::node_pty::NodePtyStart,
        pump: Function<'_, PumpArgs, ()>,
    ) -> Result<()> {
        self.check_idle(env)?;
        let spawn = crate::node_pty::spawn_options(options).into_js(env)?;
        self.launch(env, spawn, pump, true)
    }

    /// The path of the terminal's slave side (`/dev/pts/3`), kept after the
    /// exit; `null` before `start`, for plain pipes and on Windows.
    #[napi(getter, catch_unwind)]
    pub fn pts_name(&self) -> Option<String> {
        self.session.as_ref()?.pts_name()
    }

    /// A new descriptor of the pty master in this process (close-on-exec),
    /// owned by the caller, who must close it; `null` before `start`, for
    /// plain pipes and after the exit. It keeps the terminal open: close it
    /// once the exit was delivered.
    /// Windows: always `null` (a pseudo console has no descriptor to share).
    #[napi(catch_unwind)]
    pub fn dup_master(&self) -> Option<i32> {
        #[cfg(unix)]
        {
            use std::os::fd::IntoRawFd;
            Some(self.session.as_ref()?.dup_master()?.into_raw_fd())
        }
        #[cfg(windows)]
        {
            None
        }
    }

    /// The name of the terminal's foreground program (`argv[0]` on Linux),
    /// for a title; `null` before `start`, after the exit, for plain pipes or
    /// when the OS cannot tell.
    #[napi(catch_unwind)]
    pub fn foreground_name(&self) -> Option<String> {
        self.session.as_ref()?.foreground_name()
    }

    /// The sandbox the program runs under; `null` before `start` and
    /// without one.
    #[napi(catch_unwind)]
    pub fn sandbox(&self) -> Option<SandboxInfo> {
        self.session.as_ref()?.sandbox().map(SandboxInfo::from)
    }

    /// What the sandbox refused this program since the last call: the
    /// network proxy's refusals and (Linux) the supervisor's (Unix sockets,
    /// connections that bypass the proxy); empty without a sandbox.
    #[napi(catch_unwind)]
    pub fn take_network_refusals(&self) -> Vec<String> {
        self.session
            .as_ref()
            .and_then(|s| s.sandbox())
            .and_then(|a| a.net_log.as_ref())
            .map(|log| log.take())
            .unwrap_or_default()
    }

    /// Process id of the program (`null` before `start`).
    #[napi(getter, catch_unwind)]
    pub fn pid(&self) -> Option<i32> {
        self.session.as_ref().map(Session::pid)
    }

    /// True from `start` until the exit was delivered.
    #[napi(getter, catch_unwind)]
    pub fn running(&self) -> bool {
        self.session.as_ref().is_some_and(Session::running)
    }

    /// Sends text (UTF-8) or bytes to the program without blocking. True
    /// when the terminal had echo off in canonical mode (a password prompt):
    /// the input is kept nowhere.
    #[napi(catch_unwind)]
    pub fn write(&self, env: &Env, data: Either<String, Uint8Array>) -> Result<bool> {
        let session = self.input(env, "write to")?;
        let written = match &data {
            Either::A(text) => session.write(text.as_bytes()),
            Either::B(bytes) => session.write(bytes),
        }
        .into_js(env)?;
        self.arm();
        Ok(written.hidden)
    }

    /// Sends named keys, encoded for the cursor mode the program turned on.
    /// True when the input is kept nowhere (as `write`).
    #[napi(catch_unwind)]
    pub fn send_keys(&self, env: &Env, keys: Vec<String>) -> Result<bool> {
        let session = self.live(env, "send keys to")?;
        let bytes = keys::encode_keys(&keys, KeyModes::from(session.modes())).into_js(env)?;
        self.note_input(session);
        let written = session.write(&bytes).into_js(env)?;
        self.arm();
        Ok(written.hidden)
    }

    /// Types `text` with named keys in angle brackets (`"y<enter>"`,
    /// `"<ctrl+c>"`), as a tool's `apply` takes it, encoded for the cursor
    /// mode the program turned on; `ERR_INVALID_INPUT` for a key token that
    /// cannot be sent (`<ctrl+foo>`). Returns the number of bytes written
    /// and whether the input is kept nowhere (as `write`).
    #[napi(catch_unwind)]
    pub fn write_input(&self, env: &Env, text: String) -> Result<WrittenInput> {
        let session = self.live(env, "write to")?;
        let bytes = keys::encode_input(&text, KeyModes::from(session.modes())).into_js(env)?;
        self.note_input(session);
        let written = session.write(&bytes).into_js(env)?;
        self.arm();
        Ok(WrittenInput {
            bytes: bytes.len() as u32,
            hidden: written.hidden,
        })
    }

    /// Pastes text: wrapped in bracketed-paste markers when the program
    /// enabled mode 2004, as typed otherwise. True when the input is kept
    /// nowhere (as `write`).
    #[napi(catch_unwind)]
    pub fn paste(&self, env: &Env, text: String) -> Result<bool> {
        let session = self.input(env, "paste into")?;
        let bytes = keys::paste_bytes(&text, session.modes().bracketed_paste);
        let written = session.write(&bytes).into_js(env)?;
        self.arm();
        Ok(written.hidden)
    }

    /// Sends one mouse event, encoded for the tracking mode and encoding the
    /// program enabled. `false` when that mode does not report this kind of
    /// event (motion under mode 1000), so nothing was sent. `ERR_MOUSE_OFF`
    /// when the program has not enabled mouse reporting; `ERR_INVALID_ARG`
    /// for a cell its encoding cannot reach.
    #[napi(catch_unwind)]
    pub fn mouse(&self, env: &Env, event: crate::keys::MouseEventInput) -> Result<bool> {
        let session = self.live(env, "send a mouse event to")?;
        let event = keys::MouseEvent::try_from(event).into_js(env)?;
        let Some(bytes) = keys::encode_mouse(&event, session.modes().mouse).into_js(env)? else {
            return Ok(false);
        };
        self.note_input(session);
        session.write(&bytes).into_js(env)?;
        self.arm();
        Ok(true)
    }

    /// The mouse reports the program asked for.
    #[napi(catch_unwind)]
    pub fn mouse_mode(&self, env: &Env) -> Result<crate::keys::MouseMode> {
        Ok(self.started(env)?.modes().mouse.into())
    }

    /// Resizes the terminal; the program sees the new size (SIGWINCH).
    #[napi(catch_unwind)]
    pub fn resize(&self, env: &Env, cols: f64, rows: f64) -> Result<()> {
        let size = match &self.session {
            // Without a screen model its limits do not apply (node-pty sessions).
            Some(session) if !session.has_model() => crate::node_pty::check_size(cols, rows),
            _ => screen::validate_size(cols, rows),
        };
        let (cols, rows) = size.into_js(env)?;
        self.live(env, "resize")?.resize(cols, rows).into_js(env)
    }

    /// The screen now.
    #[napi(catch_unwind)]
    pub fn screen(&self, env: &Env) -> Result<ScreenSnapshot> {
        let session = self.started(env)?;
        let (snap, seq) = session.snapshot();
        Ok(ScreenSnapshot::new(snap, seq))
    }

    /// The screen now for `PtySession.screen()`, which keeps the last one
    /// (JS strings made once) and builds the snapshot object itself: both
    /// cost more than the screen model's part when made here every time.
    ///
    /// `frame` (a `Float64Array` of [`FRAME_LEN`]) holds the version of the
    /// screen the caller has in its first two slots (generation and `seq`;
    /// a negative generation for none). When the screen is still that one,
    /// this returns nothing and leaves `frame` as it is. Otherwise it
    /// writes the new screen's version and numbers into `frame` (see the
    /// `FRAME_*` slots) and returns `[text, title]`.
    #[napi(catch_unwind)]
    pub fn screen_frame(
        &self,
        env: &Env,
        mut frame: Float64ArraySlice,
    ) -> Result<Option<(String, String)>> {
        let session = self.started(env)?;
        // SAFETY: JS runs on this thread only, and is waiting for this call;
        // the slice does not outlive it.
        let frame = unsafe { frame.as_mut() };
        if frame.len() != FRAME_LEN {
            return Err(js_error(
                env,
                &CoreError::invalid_arg(format!(
                    "the screen frame must have {FRAME_LEN} slots, got {}",
                    frame.len()
                )),
            ));
        }
        let known = (frame[FRAME_GENERATION] >= 0.0).then(|| ScreenVersion {
            generation: frame[FRAME_GENERATION] as u64,
            seq: frame[FRAME_SEQ] as u64,
        });
        let Some((view, version)) = session.snapshot_if_changed(known) else {
            return Ok(None);
        };
        frame[FRAME_GENERATION] = version.generation as f64;
        frame[FRAME_SEQ] = version.seq as f64;
        frame[FRAME_CURSOR_ROW] = view.cursor_row.into();
        frame[FRAME_CURSOR_COL] = view.cursor_col.into();
        frame[FRAME_CURSOR_VISIBLE] = f64::from(u8::from(view.cursor_visible));
        frame[FRAME_COLS] = view.cols.into();
        frame[FRAME_ROWS] = view.rows.into();
        frame[FRAME_ALT_SCREEN] = f64::from(u8::from(view.alt_screen));
        Ok(Some((view.text, view.title)))
    }

    /// The screen now with the styled runs of every row.
    #[napi(catch_unwind)]
    pub fn screen_styled(&self, env: &Env) -> Result<StyledScreen> {
        let (snap, styles, seq) = self.started(env)?.styled_snapshot();
        Ok(StyledScreen::new(snap, styles, seq))
    }

    /// The screen now with every row's cells, one run per cell (what
    /// `screenshot()` draws).
    #[napi(catch_unwind)]
    pub fn screen_cells(&self, env: &Env) -> Result<StyledScreen> {
        let (snap, cells, seq) = self.started(env)?.cell_snapshot();
        Ok(StyledScreen::new(snap, cells, seq))
    }

    /// Reads the transcript.
    #[napi(catch_unwind)]
    pub fn read(&self, env: &Env, options: Option<Unknown>) -> Result<ReadResult> {
        let session = self.started(env)?;
        let mut opts = Opts::new(options, "options").into_js(env)?;
        let since = opts
            .integer("since", 0.0, 9.0e15)
            .into_js(env)?
            .map(|n| n as u64);
        let tail = opts
            .integer("tail", 0.0, 1.0e9)
            .into_js(env)?
            .map(|n| n as usize);
        let raw = opts.bool("raw").into_js(env)?.unwrap_or(false);
        opts.finish().into_js(env)?;
        let result = session
            .read(&ReadOptions { since, tail, raw })
            .into_js(env)?;
        let exit = session.exit();
        Ok(ReadResult {
            text: result.text,
            cursor: result.cursor as f64,
            running: exit.is_none(),
            exit_code: exit.and_then(|e| e.exit_code),
            truncated: result.truncated,
        })
    }

    /// With a signal: sends it to the program. Without: kills the whole tree
    /// now (no-op when the program already exited).
    #[napi(catch_unwind)]
    pub fn kill(&self, env: &Env, signal: Option<String>) -> Result<()> {
        match signal {
            Some(name) => {
                let sig = parse_signal(&name).into_js(env)?;
                self.live(env, "signal")?.signal(sig).into_js(env)
            }
            None => {
                if let Some(session) = self.session.as_ref().filter(|s| s.running()) {
                    // The exit may have happened a moment ago: that is fine.
                    let _ = session.kill();
                }
                Ok(())
            }
        }
    }

    /// Starts terminating the tree (TERM, grace, KILL); the exit is delivered
    /// through the pump. No-op when the program already exited.
    #[napi(catch_unwind)]
    pub fn terminate(&self, env: &Env, grace_ms: Option<f64>) -> Result<()> {
        let grace = match grace_ms {
            None => session::DEFAULT_GRACE,
            Some(ms) => time::millis("options.graceMs", ms).into_js(env)?,
        };
        let session = self.started(env)?;
        if session.running() {
            let _ = session.terminate(grace);
        }
        Ok(())
    }

    /// Resolves when the program waits for input (`reason: 'input'`), no
    /// output came for `quietMs` and no synchronized-output block is open
    /// (`'quiet'`), the program exited (`'exit'`), `timeoutMs` passed
    /// (`'timeout'`) or `token` was cancelled (`'aborted'`; the JS layer then
    /// rejects).
    #[napi(catch_unwind)]
    pub fn wait_for_settle<'e>(
        &self,
        env: &'e Env,
        quiet_ms: f64,
        timeout_ms: f64,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, SettledSnapshot>> {
        let session = self.started(env)?.clone();
        let quiet = Duration::from_millis(quiet_ms.max(0.0) as u64);
        let timeout = Duration::from_millis(timeout_ms.max(0.0) as u64);
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        env.spawn_future(async move {
            let end = tokio::select! {
                end = session.wait_settle(quiet, timeout) => Some(end),
                () = cancel.cancelled() => None,
            };
            let (snap, seq) = session.snapshot();
            let screen = ScreenSnapshot::new(snap, seq);
            Ok(match end {
                Some(end) => SettledSnapshot {
                    settled: end.settled(),
                    reason: end.reason().to_owned(),
                    input: match end {
                        session::Settled::Input(state) => Some(state.into()),
                        _ => None,
                    },
                    screen,
                },
                None => SettledSnapshot {
                    settled: false,
                    reason: "aborted".to_owned(),
                    input: None,
                    screen,
                },
            })
        })
    }

    /// Whether the program waits for input now (one look at the terminal and
    /// the kernel's process table, on this thread).
    #[napi(catch_unwind)]
    pub fn input_state(&self, env: &Env) -> Result<InputState> {
        Ok(self.started(env)?.input_state().into())
    }

    /// Resolves once the program waits for input (`'input'`), it exited
    /// (`'exit'`), `timeoutMs` passed (`'timeout'`) or `token` was cancelled
    /// (`'aborted'`). With `sinceSeq`, a wait counts only once output went
    /// past that position or input was written at or after it.
    #[napi(catch_unwind)]
    pub fn wait_for_input<'e>(
        &self,
        env: &'e Env,
        since_seq: Option<f64>,
        timeout_ms: f64,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, InputWait>> {
        let session = self.started(env)?.clone();
        let timeout = Duration::from_millis(timeout_ms.clamp(0.0, 1e12) as u64);
        let since = since_seq.map(|s| s.max(0.0) as u64);
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        env.spawn_future(async move {
            let (reason, state) = tokio::select! {
                (end, state) = session.wait_input(since, timeout) => (
                    match end {
                        session::InputEnd::Input => "input",
                        session::InputEnd::Exit => "exit",
                        session::InputEnd::Timeout => "timeout",
                    },
                    state,
                ),
                () = cancel.cancelled() => ("aborted", session::InputState::default()),
            };
            let (snap, seq) = session.snapshot();
            Ok(InputWait {
                reason: reason.to_owned(),
                state: state.into(),
                screen: ScreenSnapshot::new(snap, seq),
            })
        })
    }

    /// Resolves with the new output position once output beyond `afterSeq`
    /// was processed, the program exited, `timeoutMs` passed or `token` was
    /// cancelled.
    #[napi(catch_unwind)]
    pub fn wait_output<'e>(
        &self,
        env: &'e Env,
        after_seq: f64,
        timeout_ms: f64,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, f64>> {
        let session = self.started(env)?.clone();
        let timeout = Duration::from_millis(timeout_ms.clamp(0.0, 1e12) as u64);
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        env.spawn_future(async move {
            let after = after_seq.max(0.0) as u64;
            Ok(tokio::select! {
                seq = session.wait_output(after, timeout) => seq,
                () = cancel.cancelled() => session.seq(),
            } as f64)
        })
    }

    /// Output position (as `screen().seq` and `read().cursor`: bytes of
    /// decoded output) when input was last written; 0 before any input.
    #[napi(getter, catch_unwind)]
    pub fn input_seq(&self) -> f64 {
        self.input_seq.get() as f64
    }

    /// Panics of the screen model the session contained (see `PtyIncident`).
    #[napi(getter, catch_unwind)]
    pub fn incidents(&self) -> Vec<PtyIncident> {
        let Some(session) = &self.session else {
            return Vec::new();
        };
        session
            .incidents()
            .into_iter()
            .map(|i| PtyIncident {
                message: i.message,
                seq: i.seq as f64,
            })
            .collect()
    }

    /// The captured output of a one-shot run and whether some was omitted.
    #[napi(catch_unwind)]
    pub fn captured(&self) -> Option<CapturedOutput> {
        let (output, truncated) = self.session.as_ref()?.captured()?;
        Some(CapturedOutput { output, truncated })
    }

    /// Which output the pump delivers from now on: text, raw bytes, both or
    /// neither (as listeners come and go). No-op before `start`.
    #[napi(catch_unwind)]
    pub fn set_streams(&mut self, text: bool, raw: bool) {
        if let Some(session) = &self.session {
            session.set_streams(text, raw);
            self.streaming = text || raw;
        }
    }

    /// Stops reading the terminal and delivering output until `resume`
    /// (flow control; see `Session::pause`). No-op before `start`.
    #[napi(catch_unwind)]
    pub fn pause(&self) {
        if let Some(session) = &self.session {
            session.pause();
        }
    }

    /// Ends a `pause`: what waited is delivered, then reading goes on.
    #[napi(catch_unwind)]
    pub fn resume(&self) {
        if let Some(session) = &self.session {
            session.resume();
        }
    }

    /// True between `pause` and `resume`.
    #[napi(getter, catch_unwind)]
    pub fn paused(&self) -> bool {
        self.session.as_ref().is_some_and(Session::is_paused)
    }
}

impl NativeSession {
    /// `ERR_ALREADY_RUNNING` while the program of the last start runs.
    fn check_idle(&self, env: &Env) -> Result<()> {
        if self.session.as_ref().is_some_and(Session::running) {
            return Err(js_error(
                env,
                &CoreError::new(
                    ErrorCode::AlreadyRunning,
                    "start() was called while the session is running; wait for `exited` or call terminate() first",
                ),
            ));
        }
        Ok(())
    }

    /// Spawns the session and attaches `pump` as its listener (see `start`).
    fn launch(
        &mut self,
        env: &Env,
        spawn: SpawnOptions,
        pump: Function<'_, PumpArgs, ()>,
        keep_alive: bool,
    ) -> Result<()> {
        let streaming = spawn.stream_output || spawn.stream_raw;
        let session = Session::spawn(spawn).into_js(env)?;
        if let Some(id) = self.watch.take() {
            crate::fastpath::close(id);
        }
        // Output the fast path may deliver before the session thread would.
        // It is armed only while a listener takes output (listeners can be
        // added later); until the first write it costs no descriptor.
        let watch = crate::fastpath::open(env.raw(), &session, pump.raw());
        self.watch = watch;
        self.streaming = streaming;
        self.input_seq.set(0);
        let taker = session.clone();
        let callback = move |_ctx: ThreadsafeCallContext<()>| {
            let out = taker.take_outbox();
            if let Some(id) = watch {
                if out.exit.is_some() {
                    // Before the exit is seen: the watch's duplicate of the
                    // master must not outlive the session's.
                    contain("closing the fast path", (), || crate::fastpath::close(id));
                } else if out.data.len().max(out.raw.len()) >= session::READ_BATCH
                    && !taker.is_paused()
                {
                    // A flood the session thread read, and this thread is
                    // free: it reads the rest itself (see `fastpath`).
                    contain("taking a flood", (), || crate::fastpath::take_flood(id));
                }
            }
            let data = (!out.data.is_empty()).then_some(out.data);
            let raw = (!out.raw.is_empty()).then(|| Uint8Array::from(out.raw));
            Ok(FnArgs::from((data, out.exit.map(PtyExit::from), raw)))
        };
        let builder = pump
            .build_threadsafe_function::<()>()
            .callee_handled::<false>();
        let sink: Arc<dyn EventSink> = if keep_alive {
            Arc::new(PumpSink(builder.build_callback(callback)?))
        } else {
            Arc::new(PumpSink(builder.weak::<true>().build_callback(callback)?))
        };
        session.attach(sink);
        crate::cleanup::track(env, crate::cleanup::Owner::Session(session.downgrade()));
        self.session = Some(session);
        Ok(())
    }

    fn started(&self, env: &Env) -> Result<&Session> {
        self.session.as_ref().ok_or_else(|| {
            js_error(
                env,
                &CoreError::not_running("the session has not been started; call start() first"),
            )
        })
    }

    /// A running session about to be written to, with the output position
    /// noted first: output processed from here on counts as after the input.
    fn input(&self, env: &Env, what: &str) -> Result<&Session> {
        let session = self.live(env, what)?;
        self.note_input(session);
        Ok(session)
    }

    fn note_input(&self, session: &Session) {
        self.input_seq.set(session.seq());
    }

    /// After input: the answer is read on this thread as soon as it comes
    /// (when a listener takes output, and not while paused).
    fn arm(&self) {
        if !self.streaming || self.session.as_ref().is_some_and(Session::is_paused) {
            return;
        }
        if let Some(id) = self.watch {
            crate::fastpath::arm(id);
        }
    }

    fn live(&self, env: &Env, what: &str) -> Result<&Session> {
        let session = self.started(env)?;
        if !session.running() {
            return Err(js_error(
                env,
                &CoreError::not_running(format!(
                    "cannot {what} the session: the program has exited"
                )),
            ));
        }
        Ok(session)
    }
}
