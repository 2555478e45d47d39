//! The registry: registered tools and the live handles the model drives.
//!
//! A model's tool call (`{ action: "spawn" | "fetch" | "apply" | "abort", ... }`)
//! goes to [`Registry::call`], which validates it against the tool's schema
//! and carries it out on a [`Session`]: a pseudo-terminal for interactive
//! commands, plain pipes for `pty: false` commands. The answer is a
//! [`ToolState`]: `running` with the settled screen as content, or `stopped`
//! with the result.
//!
//! Settling after spawn and apply has two phases (see "Tool protocol" in
//! DESIGN.md): first wait for the program to *react* — new output, up to
//! [`RESPONSE_WINDOW`], and after a submitted line (input with Enter) output
//! beyond the mere echo of what was typed — then wait for a quiet period of
//! the command's `settleMs` (at most [`SETTLE_CAP`]). Either phase ends early
//! when the program exits, and at once when it waits for input (the
//! session's input state: a prompt, a menu, a password); the quiet period is
//! the fallback where nothing says so (output that stops while the program
//! works on). A screen captured before the program reacted is the classic
//! failure of agent terminal tools; the first phase is what avoids it.
//!
//! Every state a call returns says why its wait ended (`reason`: `input`,
//! `exit`, `quiet` or `timeout`), and a `running` one what the program waits
//! for (`inputKind`: `line`, `password`, `key`, or null while it works).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{CommandSpec, ToolCall, ToolSpec, truncate_middle};
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::keys::{KeyModes, encode_input};
use crate::core::screen::View;
use crate::core::session::{
    self, EventSink, Exit, InputEnd, PipeOptions, Session, Settled, SpawnOptions,
};
use crate::core::transcript::{ReadOptions, strip};

/// How long a program may take to react to a spawn or an input.
pub const RESPONSE_WINDOW: Duration = Duration::from_millis(2000);
/// The longest wait for the quiet period; a program that never goes quiet
/// (a spinner, a log tail) is returned as it is after this.
pub const SETTLE_CAP: Duration = Duration::from_millis(5000);
/// Grace between TERM and KILL when a handle is aborted.
pub const ABORT_GRACE: Duration = session::DEFAULT_GRACE;
/// Default limit of running handles per registry.
pub const DEFAULT_MAX_HANDLES: usize = 64;

/// Registry settings.
#[derive(Debug, Clone)]
pub struct RegistryOptions {
    /// Working directory for tools that name none (default: the process's).
    pub cwd: Option<PathBuf>,
    /// Running handles allowed at once; the next spawn fails with `ERR_LIMIT`.
    pub max_handles: usize,
    /// Longest content returned to the model, in characters (head and tail kept).
    pub max_content_chars: usize,
    /// The environment programs inherit (default: this process's).
    pub base_env: Option<Vec<(String, String)>>,
    /// The number of the first handle id (`h<first_id>`); a fresh isolated
    /// host after a crash starts past the ids of the one that died, so a lost
    /// id never names a new handle.
    pub first_id: u64,
    /// The sandbox every tool's program runs in; its workspace is `cwd`
    /// (when given) whatever folder a tool names.
    pub sandbox: crate::core::sandbox::Policy,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        RegistryOptions {
            cwd: None,
            sandbox: crate::core::sandbox::Policy::default(),
            max_handles: DEFAULT_MAX_HANDLES,
            max_content_chars: super::DEFAULT_MAX_CONTENT_CHARS,
            base_env: None,
            first_id: 1,
        }
    }
}

/// The lifecycle state of a handle, as `HandleInfo.state` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleState {
    /// The program runs.
    Running,
    /// It exited with code 0.
    Success,
    /// It exited non-zero, was killed by a signal, or could not start.
    Error,
    /// The command's `timeoutMs` ran out.
    Timeout,
    /// It was aborted.
    Aborted,
}

impl HandleState {
    /// The name JS sees.
    pub fn as_str(self) -> &'static str {
        match self {
            HandleState::Running => "running",
            HandleState::Success => "success",
            HandleState::Error => "error",
            HandleState::Timeout => "timeout",
            HandleState::Aborted => "aborted",
        }
    }
}

/// A summary of one handle (`HandleInfo` in JS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandleInfo {
    /// The handle id the model uses.
    pub id: String,
    /// Tool name.
    pub tool: String,
    /// Command name.
    pub command: String,
    /// The call's extra arguments.
    pub args: Vec<String>,
    /// Process id (`None` when the program could not start).
    pub pid: Option<i32>,
    /// Lifecycle state.
    pub state: HandleState,
    /// Start, in milliseconds since the Unix epoch.
    pub started_at: u64,
    /// End, in milliseconds since the Unix epoch.
    pub finished_at: Option<u64>,
    /// Exit code of a normal exit.
    pub exit_code: Option<i32>,
}

/// A registry event (`ToolEvent` in JS), in order per handle:
/// `Started`, then `Output`s, then `Finished`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolEvent {
    /// A handle was spawned (or failed to start).
    Started(HandleInfo),
    /// A handle's program printed something.
    Output {
        /// Handle id.
        id: String,
        /// The text, as the program printed it.
        chunk: String,
    },
    /// A handle's program ended.
    Finished(HandleInfo),
}

/// Told when events are waiting in [`Registry::take_events`].
pub trait EventListener: Send + Sync {
    /// Events are waiting.
    fn wake(&self);
}

struct Handle {
    id: String,
    tool: String,
    spec: CommandSpec,
    args: Vec<String>,
    /// `Err` when the program could not be started.
    session: std::result::Result<Session, Error>,
    started_at: u64,
    aborted: bool,
    /// The model has been shown the stopped state: the handle is forgotten.
    delivered: bool,
    /// The `finished` event went out.
    finished_sent: bool,
}

impl Handle {
    fn exit(&self) -> Option<Exit> {
        match &self.session {
            Ok(s) => s.exit(),
            Err(_) => Some(Exit::default()),
        }
    }

    fn state(&self) -> HandleState {
        let Some(exit) = self.exit() else {
            return HandleState::Running;
        };
        if self.session.is_err() {
            return HandleState::Error;
        }
        if exit.timed_out {
            HandleState::Timeout
        } else if self.aborted {
            HandleState::Aborted
        } else if exit.exit_code == Some(0) {
            HandleState::Success
        } else {
            HandleState::Error
        }
    }

    fn info(&self) -> HandleInfo {
        let exit = self.exit();
        HandleInfo {
            id: self.id.clone(),
            tool: self.tool.clone(),
            command: self.spec.name.clone(),
            args: self.args.clone(),
            pid: self.session.as_ref().ok().map(Session::pid),
            state: self.state(),
            started_at: self.started_at,
            finished_at: exit
                .as_ref()
                .map(|e| e.at.map_or(self.started_at, epoch_ms)),
            exit_code: exit.and_then(|e| e.exit_code),
        }
    }
}

struct Inner {
    tools: BTreeMap<String, ToolSpec>,
    /// Handles by creation order (ids are `h1`, `h2`, ...).
    handles: Vec<Handle>,
    next_id: u64,
    /// `Started` events not yet taken (others are pulled from the sessions).
    started: Vec<ToolEvent>,
}

struct Shared {
    inner: Mutex<Inner>,
    options: RegistryOptions,
    listener: Option<Arc<dyn EventListener>>,
}

/// Tools and their live handles. Cheap to clone: clones share the registry.
#[derive(Clone)]
pub struct Registry {
    shared: Arc<Shared>,
}

/// A registry reference that does not keep it alive.
#[derive(Clone)]
pub struct WeakRegistry(std::sync::Weak<Shared>);

impl WeakRegistry {
    /// The registry, if anything else still holds it.
    pub fn upgrade(&self) -> Option<Registry> {
        Some(Registry {
            shared: self.0.upgrade()?,
        })
    }
}

/// Wakes the registry's listener when a handle's session has output or exited.
struct HandleSink(Arc<dyn EventListener>);

impl EventSink for HandleSink {
    fn wake(&self) {
        self.0.wake();
    }
}

impl Registry {
    /// An empty registry; `listener` (if any) is woken when events wait.
    pub fn new(options: RegistryOptions, listener: Option<Arc<dyn EventListener>>) -> Self {
        Registry {
            shared: Arc::new(Shared {
                inner: Mutex::new(Inner {
                    tools: BTreeMap::new(),
                    handles: Vec::new(),
                    next_id: options.first_id.max(1),
                    started: Vec::new(),
                }),
                options,
                listener,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.shared.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a tool; `ERR_INVALID_ARG` when one of that name exists.
    pub fn register(&self, tool: ToolSpec) -> Result<()> {
        let mut inner = self.lock();
        if inner.tools.contains_key(tool.name()) {
            return Err(Error::invalid_arg(format!(
                "a tool named \"{}\" is already registered; unregister it first",
                tool.name()
            )));
        }
        inner.tools.insert(tool.name().to_owned(), tool);
        Ok(())
    }

    /// Removes a tool and terminates its running handles. Returns whether it
    /// was registered.
    pub fn unregister(&self, name: &str) -> bool {
        let mut inner = self.lock();
        let removed = inner.tools.remove(name).is_some();
        for handle in inner.handles.iter_mut().filter(|h| h.tool == name) {
            if let Ok(session) = &handle.session
                && session.running()
            {
                handle.aborted = true;
                let _ = session.terminate(ABORT_GRACE);
            }
        }
        removed
    }

    /// Registered tool names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.lock().tools.keys().cloned().collect()
    }

    /// A registered tool.
    pub fn tool(&self, name: &str) -> Result<ToolSpec> {
        let found = self.lock().tools.get(name).cloned();
        found.ok_or_else(|| unknown_tool(name, &self.names()))
    }

    /// Every registered tool, by name.
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.lock().tools.values().cloned().collect()
    }

    /// The screen of terminal handle `id` now, with the output position (as
    /// [`Session::snapshot`]); `None` for an unknown handle, a pipes command
    /// or a program that could not start. What renders a running state's
    /// content for a model reads the cursor and size here.
    pub fn screen(&self, id: &str) -> Option<(View, u64)> {
        let session = {
            let inner = self.lock();
            let handle = inner.handles.iter().find(|h| h.id == id)?;
            handle.session.as_ref().ok()?.clone()
        };
        session.is_pty().then(|| session.snapshot())
    }

    /// Every handle not yet forgotten (finished ones stay until the model
    /// was shown their stopped state).
    pub fn list(&self) -> Vec<HandleInfo> {
        self.lock()
            .handles
            .iter()
            .filter(|h| !h.delivered)
            .map(Handle::info)
            .collect()
    }

    /// Carries out a tool call. Rejects only malformed calls (`ERR_INVALID_INPUT`),
    /// unknown tools or handles, and `ERR_LIMIT`; a program that fails or cannot
    /// start is a `stopped` state the model sees.
    pub async fn call(&self, tool_name: &str, input: &Value) -> Result<Value> {
        let tool = self.tool(tool_name)?;
        let call = tool.validate_call(input)?;
        match call {
            ToolCall::Spawn { command, args } => self.spawn(&tool, &command, args).await,
            ToolCall::Fetch { id } => {
                let (session, spec) = self.session_of(tool_name, &id)?;
                let reason = match &session {
                    Ok(session) => settle(session, Duration::from_millis(spec.settle_ms)).await,
                    Err(_) => Reason::Exit,
                };
                Ok(self.state_of(&id, true, reason))
            }
            ToolCall::Apply { id, input } => self.apply(tool_name, &id, &input).await,
            ToolCall::Abort { id } => {
                let (session, _) = self.session_of(tool_name, &id)?;
                if let Ok(session) = session
                    && session.running()
                {
                    self.with_handle(&id, |h| h.aborted = true);
                    let _ = session.terminate(ABORT_GRACE);
                    session.wait_exit().await;
                }
                Ok(self.state_of(&id, true, Reason::Exit))
            }
        }
    }

    async fn spawn(&self, tool: &ToolSpec, command: &str, args: Vec<String>) -> Result<Value> {
        let spec = tool.command(command).cloned().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                format!("unknown command {command:?}"),
            )
        })?;
        let opts = self.spawn_options(tool, &spec, &args);
        let (id, session) = {
            let mut inner = self.lock();
            let running = inner
                .handles
                .iter()
                .filter(|h| h.session.as_ref().is_ok_and(Session::running))
                .count();
            if running >= self.shared.options.max_handles {
                return Err(Error::new(
                    ErrorCode::Limit,
                    format!(
                        "too many running handles ({running}, limit {}); abort or finish one first",
                        self.shared.options.max_handles
                    ),
                ));
            }
            let id = format!("h{}", inner.next_id);
            inner.next_id += 1;
            let session = Session::spawn(opts);
            let handle = Handle {
                id: id.clone(),
                tool: tool.name().to_owned(),
                spec: spec.clone(),
                args,
                session: session.clone(),
                started_at: epoch_ms(SystemTime::now()),
                aborted: false,
                delivered: false,
                finished_sent: false,
            };
            if self.shared.listener.is_some() {
                inner.started.push(ToolEvent::Started(handle.info()));
            }
            inner.handles.push(handle);
            (id, session)
        };
        if let Some(listener) = &self.shared.listener {
            if let Ok(session) = &session {
                session.attach(Arc::new(HandleSink(listener.clone())));
            }
            listener.wake();
        }
        let reason = match &session {
            Ok(session) => {
                react_and_settle(session, 0, None, Duration::from_millis(spec.settle_ms)).await
            }
            Err(_) => Reason::Exit,
        };
        Ok(self.state_of(&id, true, reason))
    }

    fn spawn_options(&self, tool: &ToolSpec, spec: &CommandSpec, args: &[String]) -> SpawnOptions {
        let cwd = tool
            .cwd()
            .map(PathBuf::from)
            .or_else(|| self.shared.options.cwd.clone());
        SpawnOptions {
            command: spec.program[0].clone(),
            args: spec.program[1..].iter().chain(args).cloned().collect(),
            cwd,
            env: spec
                .env
                .iter()
                .map(|(k, v)| (k.clone(), Some(v.clone())))
                .collect(),
            base_env: self.shared.options.base_env.clone(),
            timeout: spec.timeout_ms.map(Duration::from_millis),
            stream_output: self.shared.listener.is_some(),
            pipes: (!spec.pty).then_some(PipeOptions {
                stdin: spec.accepts_input,
                capture_stderr: false,
            }),
            // Pipes content is stdout: keep head and tail, in bytes a little
            // beyond the character limit so the final cut is by characters.
            capture_limit: (!spec.pty).then_some(self.shared.options.max_content_chars * 4 + 64),
            sandbox: {
                let mut sandbox = self.shared.options.sandbox.clone();
                if sandbox.workspace.is_none() {
                    sandbox.workspace = self.shared.options.cwd.clone();
                }
                sandbox
            },
            ..SpawnOptions::default()
        }
    }

    async fn apply(&self, tool_name: &str, id: &str, input: &str) -> Result<Value> {
        let (session, spec) = self.session_of(tool_name, id)?;
        if !spec.accepts_input() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "command \"{}\" does not accept input; use fetch to read handle {id}, or abort to stop it",
                    spec.name
                ),
            ));
        }
        let session = match session {
            Ok(s) if s.running() => s,
            _ => {
                let exit = self
                    .with_handle(id, |h| h.exit())
                    .flatten()
                    .unwrap_or_default();
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "handle {id} has stopped ({}); the input was not sent. Fetch it for the result",
                        describe_exit(&exit)
                    ),
                ));
            }
        };
        let modes = if session.is_pty() {
            KeyModes::from(session.modes())
        } else {
            KeyModes::default()
        };
        let bytes = encode_input(input, modes)?;
        let seq = session.seq();
        let cursor = session
            .read(&ReadOptions {
                since: None,
                tail: Some(0),
                raw: true,
            })?
            .cursor;
        if let Err(e) = session.write(&bytes) {
            if e.code != ErrorCode::NotRunning {
                return Err(e);
            }
        }
        // A submitted line expects an answer beyond the echo of what was typed.
        let submitted = bytes.contains(&b'\r') || bytes.contains(&b'\n');
        let echo = submitted.then(|| typed_text(input));
        let echo = echo.as_deref().map(|e| (cursor, e));
        let reason =
            react_and_settle(&session, seq, echo, Duration::from_millis(spec.settle_ms)).await;
        Ok(self.state_of(id, true, reason))
    }

    /// Waits until handle `id` stopped (or `timeout`), then returns its state
    /// without marking it shown to the model.
    pub async fn wait(&self, id: &str, timeout: Option<Duration>) -> Result<Value> {
        let session = self
            .with_handle(id, |h| h.session.clone())
            .ok_or_else(|| self.unknown_handle(id))?;
        let mut reason = Reason::Exit;
        if let Ok(session) = session {
            match timeout {
                Some(t) => {
                    if tokio::time::timeout(t, session.wait_exit()).await.is_err() {
                        reason = Reason::Timeout;
                    }
                }
                None => {
                    session.wait_exit().await;
                }
            }
        }
        Ok(self.state_of(id, false, reason))
    }

    /// Terminates every running handle (TERM, grace, KILL) and waits for them.
    pub async fn abort_all(&self) {
        let sessions: Vec<Session> = {
            let mut inner = self.lock();
            inner
                .handles
                .iter_mut()
                .filter_map(|h| {
                    let s = h.session.as_ref().ok().filter(|s| s.running())?.clone();
                    h.aborted = true;
                    Some(s)
                })
                .collect()
        };
        for session in &sessions {
            let _ = session.terminate(ABORT_GRACE);
        }
        for session in sessions {
            session.wait_exit().await;
        }
    }

    /// SIGKILL to every running handle's process tree, on the calling thread
    /// (teardown).
    pub fn kill_all_now(&self) {
        let sessions: Vec<Session> = self
            .lock()
            .handles
            .iter()
            .filter_map(|h| h.session.clone().ok())
            .collect();
        for session in sessions {
            session.kill_now();
        }
    }

    /// A handle that does not keep the registry alive.
    pub fn downgrade(&self) -> WeakRegistry {
        WeakRegistry(Arc::downgrade(&self.shared))
    }

    /// Takes the waiting events, in order per handle.
    pub fn take_events(&self) -> Vec<ToolEvent> {
        let mut inner = self.lock();
        let mut events = std::mem::take(&mut inner.started);
        for handle in inner.handles.iter_mut() {
            let Ok(session) = &handle.session else {
                if !handle.finished_sent {
                    handle.finished_sent = true;
                    events.push(ToolEvent::Finished(handle.info()));
                }
                continue;
            };
            if handle.finished_sent {
                continue;
            }
            let out = session.take_outbox();
            if !out.data.is_empty() {
                events.push(ToolEvent::Output {
                    id: handle.id.clone(),
                    chunk: out.data,
                });
            }
            if out.exit.is_some() {
                handle.finished_sent = true;
                events.push(ToolEvent::Finished(handle.info()));
            }
        }
        // Forgotten handles whose last event went out are dropped for good.
        inner.handles.retain(|h| !(h.delivered && h.finished_sent));
        events
    }

    fn session_of(
        &self,
        tool: &str,
        id: &str,
    ) -> Result<(std::result::Result<Session, Error>, CommandSpec)> {
        let inner = self.lock();
        let handle = inner
            .handles
            .iter()
            .find(|h| h.id == id && !h.delivered)
            .ok_or_else(|| unknown_handle(id, &inner))?;
        if handle.tool != tool {
            return Err(Error::new(
                ErrorCode::UnknownHandle,
                format!(
                    "handle {id} belongs to tool \"{}\", not \"{tool}\"",
                    handle.tool
                ),
            ));
        }
        Ok((handle.session.clone(), handle.spec.clone()))
    }

    fn with_handle<T>(&self, id: &str, f: impl FnOnce(&mut Handle) -> T) -> Option<T> {
        let mut inner = self.lock();
        inner.handles.iter_mut().find(|h| h.id == id).map(f)
    }

    fn unknown_handle(&self, id: &str) -> Error {
        unknown_handle(id, &self.lock())
    }

    /// The handle's `ToolState` as JSON, with the `reason` the call's wait
    /// ended; `deliver` marks a stopped state as shown to the model (the
    /// handle is then forgotten).
    fn state_of(&self, id: &str, deliver: bool, reason: Reason) -> Value {
        let max = self.shared.options.max_content_chars;
        let listening = self.shared.listener.is_some();
        let mut inner = self.lock();
        let Some(handle) = inner.handles.iter_mut().find(|h| h.id == id) else {
            return json!({ "id": id, "state": "stopped", "result": {
                "ok": false,
                "error": { "message": format!("handle {id} is gone"), "trace": [], "transient": false }
            }});
        };
        let state = handle.state();
        if deliver && state != HandleState::Running {
            handle.delivered = true;
        }
        let mut value = tool_state(handle, state, max);
        value["reason"] = json!(reason.as_str());
        if deliver && state != HandleState::Running && (!listening || handle.finished_sent) {
            inner.handles.retain(|h| h.id != id);
        }
        value
    }
}

/// The `ToolState` JSON of a handle in `state`.
fn tool_state(handle: &Handle, state: HandleState, max_chars: usize) -> Value {
    let session = match &handle.session {
        Ok(s) => s,
        Err(err) => {
            return json!({ "id": handle.id, "state": "stopped", "result": {
                "ok": false,
                "error": { "message": err.message, "trace": [], "transient": false },
            }});
        }
    };
    let content = content_of(session, max_chars);
    if state == HandleState::Running {
        // What the program waits for now (one look; null while it works, and for pipes).
        let input = session.input_state();
        let kind = input.kind.filter(|_| input.waiting).map(|k| k.as_str());
        let mut value =
            json!({ "id": handle.id, "state": "running", "content": content, "inputKind": kind });
        add_sandbox(&mut value, session);
        return value;
    }
    let exit = session.exit().unwrap_or_default();
    let result = match state {
        HandleState::Success | HandleState::Aborted => json!({ "ok": true, "content": content }),
        HandleState::Timeout => json!({ "ok": false, "error": {
            "message": format!(
                "Process timed out after {} ms and was terminated",
                handle.spec.timeout_ms.unwrap_or(0)
            ),
            "trace": trace_of(session, &content),
            "transient": true,
        }}),
        _ => json!({ "ok": false, "error": {
            "message": match (&exit.exit_code, &exit.signal) {
                (Some(code), _) => format!("Process exited with code {code}"),
                (None, Some(sig)) => format!("Process was killed by {sig}"),
                (None, None) => "Process ended without an exit status".to_owned(),
            },
            "trace": trace_of(session, &content),
            "transient": false,
        }}),
    };
    let mut value = json!({ "id": handle.id, "state": "stopped", "result": result });
    add_sandbox(&mut value, session);
    value
}

/// A sandboxed program's state carries what the JS layer needs to name the
/// sandbox's refusals in its output (`refusals`, lib/tool-registry.js):
/// where it may write, what stays read-only, its network, and the proxy's
/// refusals since the last state. The JS layer takes the field off.
fn add_sandbox(value: &mut Value, session: &Session) {
    let Some(a) = session.sandbox() else {
        return;
    };
    let text = |p: &std::path::PathBuf| p.to_string_lossy().into_owned();
    value["sandbox"] = json!({
        "mode": a.policy.mode.as_str(),
        "network": a.policy.network,
        "allowHosts": a.policy.hosts.as_ref().map(|h| h.allow.iter().map(ToString::to_string).collect::<Vec<_>>()),
        "writable": a.writable.iter().map(text).collect::<Vec<_>>(),
        "readOnly": a.read_only.iter().map(text).collect::<Vec<_>>(),
        "allowUnixSockets": a.policy.allow_unix_sockets.iter().map(text).collect::<Vec<_>>(),
        "networkRefusals": a.net_log.as_ref().map(|log| log.take()).unwrap_or_default(),
    });
}

/// The screen text (pty) or stdout so far (pipes), bounded.
fn content_of(session: &Session, max_chars: usize) -> String {
    let text = if session.is_pty() {
        session.screen_text()
    } else {
        session.captured().map(|(text, _)| text).unwrap_or_default()
    };
    truncate_middle(&text, max_chars).0
}

/// What explains a failure: stderr lines for pipes, the last screen lines
/// for a pty.
fn trace_of(session: &Session, content: &str) -> Vec<String> {
    let text = match session.stderr() {
        Some(stderr) => strip(&stderr),
        None => content.to_owned(),
    };
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let skip = lines.len().saturating_sub(50);
    lines.into_iter().skip(skip).collect()
}

/// Why a call's wait ended, as its `ToolState` says (`reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    /// The program waits for input.
    Input,
    /// The program exited (or could not start, or was aborted).
    Exit,
    /// No output came for the command's quiet period.
    Quiet,
    /// The wait's cap passed first.
    Timeout,
}

impl Reason {
    fn as_str(self) -> &'static str {
        match self {
            Reason::Input => "input",
            Reason::Exit => "exit",
            Reason::Quiet => "quiet",
            Reason::Timeout => "timeout",
        }
    }
}

/// Both phases after a spawn or an input: [`react`], then (unless the
/// program already waits for input or exited) [`settle`]. `seq`, `echo` as
/// for [`react`].
async fn react_and_settle(
    session: &Session,
    seq: u64,
    echo: Option<(u64, &str)>,
    quiet: Duration,
) -> Reason {
    // A terminal program that waits for input has reacted, with or without
    // output: what it waits for is the answer (a pipes command is never seen waiting).
    let waiting = async {
        if !session.is_pty() {
            return std::future::pending().await;
        }
        // After an input, only a wait that began once it was read counts.
        let since = (seq > 0 || echo.is_some()).then_some(seq);
        match session.wait_input(since, RESPONSE_WINDOW).await.0 {
            InputEnd::Input => Reason::Input,
            InputEnd::Exit => Reason::Exit,
            InputEnd::Timeout => std::future::pending().await,
        }
    };
    let reacted = tokio::select! {
        reason = waiting => Some(reason),
        () = react(session, seq, echo) => None,
    };
    match reacted {
        Some(reason) => reason,
        None => settle(session, quiet).await,
    }
}

/// Phase one: wait until the program reacted — output beyond `seq` (and, for
/// a submitted line, beyond the echo of the typed text) — or exited, up to
/// [`RESPONSE_WINDOW`].
async fn react(session: &Session, seq: u64, echo: Option<(u64, &str)>) {
    let deadline = tokio::time::Instant::now() + RESPONSE_WINDOW;
    let mut seen = seq;
    loop {
        let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
        if remaining.is_zero() || !session.running() {
            return;
        }
        let now = session.wait_output(seen, remaining).await;
        if now == seen {
            return; // timed out or exited
        }
        seen = now;
        let Some((cursor, typed)) = echo else {
            return;
        };
        let new = session
            .read(&ReadOptions {
                since: Some(cursor),
                tail: None,
                raw: false,
            })
            .map(|r| r.text)
            .unwrap_or_default();
        if !is_echo(&new, typed) {
            return;
        }
    }
}

/// True when `output` is nothing but (a prefix of) the echo of `typed`.
fn is_echo(output: &str, typed: &str) -> bool {
    let out: String = output.split_whitespace().collect();
    let typed: String = typed.split_whitespace().collect();
    typed.starts_with(&out)
}

/// The printable text of an input (key tokens dropped), i.e. what a terminal
/// would echo.
fn typed_text(input: &str) -> String {
    let mut out = String::new();
    let mut rest = input;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let token = rest[start..]
            .find('>')
            .map(|end| &rest[start..=start + end]);
        // A token that encodes to something other than itself is a key.
        let is_key = token.is_some_and(|t| {
            encode_input(t, KeyModes::default()).is_ok_and(|bytes| bytes != t.as_bytes())
        });
        match token {
            Some(t) if is_key => rest = &rest[start + t.len()..],
            _ => {
                out.push('<');
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Phase two: wait for a quiet period of `quiet` (at most [`SETTLE_CAP`]);
/// it ends at once when the program waits for input.
async fn settle(session: &Session, quiet: Duration) -> Reason {
    match session.wait_settle(quiet, SETTLE_CAP).await {
        Settled::Input(_) => Reason::Input,
        Settled::Quiet => Reason::Quiet,
        Settled::Exit => Reason::Exit,
        Settled::Timeout => Reason::Timeout,
    }
}

fn unknown_tool(name: &str, known: &[String]) -> Error {
    Error::new(
        ErrorCode::UnknownTool,
        format!(
            "no tool named {name:?} is registered (registered: {})",
            list_or_none(known)
        ),
    )
}

fn unknown_handle(id: &str, inner: &Inner) -> Error {
    let live: Vec<String> = inner
        .handles
        .iter()
        .filter(|h| !h.delivered)
        .map(|h| h.id.clone())
        .collect();
    Error::new(
        ErrorCode::UnknownHandle,
        format!(
            "no handle {id:?} (live handles: {}); a stopped handle is forgotten once its result was returned",
            list_or_none(&live)
        ),
    )
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn describe_exit(exit: &Exit) -> String {
    match (&exit.exit_code, &exit.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by {sig}"),
        _ => "no exit status".to_owned(),
    }
}

fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_detection_ignores_whitespace_and_accepts_prefixes() {
        assert!(is_echo("1+1\n", "1+1"));
        assert!(is_echo("", "1+1"));
        assert!(is_echo("1+", "1+1"));
        assert!(!is_echo("1+1\n2\n", "1+1"));
        assert!(!is_echo("Stage this hunk", "y"));
    }

    #[test]
    fn typed_text_drops_key_tokens_but_keeps_literal_brackets() {
        assert_eq!(typed_text("1+1<enter>"), "1+1");
        assert_eq!(typed_text("<up><up><enter>"), "");
        assert_eq!(typed_text("a <b> c<enter>"), "a <b> c");
        assert_eq!(typed_text("x<ctrl+c>"), "x");
    }
}
