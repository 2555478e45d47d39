//! Starting a program: options checked, the environment built, the program
//! looked up as `execvp` would, and the pty (or plain pipes) it starts on;
//! then the session thread.
use std::collections::VecDeque;
use std::ffi::OsString;
#[cfg(unix)]
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

#[cfg(unix)]
use portable_pty::{MasterPty, PtySize};
use tokio::sync::watch;

#[cfg(unix)]
use super::PipeOptions;
use super::event_loop::Loop;
#[cfg(unix)]
use super::event_loop::Output;
use super::model::Model;
use super::output::Capture;
#[cfg(unix)]
use super::output::Stream;
use super::record::{Header, Recorder};
use super::state::{Inner, Reader, Shared};
#[cfg(unix)]
use super::sys::set_nonblocking;
use super::sys::{ExitWatch, Waker};
use super::{Outbox, Session, SpawnOptions};
use crate::core::error::{Error, ErrorCode, Result};
#[cfg(unix)]
use crate::core::proc_tree::Pid;
use crate::core::proc_tree::ProcRef;
use crate::core::sandbox;
use crate::core::time;
use crate::core::transcript::Transcript;
use crate::core::utf8::Utf8Decoder;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::resolve_program;
#[cfg(windows)]
pub(super) use windows::{Io, spawn_pipes, spawn_pty};

/// Variables that describe the parent's terminal, not the one we create.
pub const TERMINAL_IDENTITY_VARS: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WINDOW",
    "WINDOWID",
    "COLUMNS",
    "LINES",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "TERM_SESSION_ID",
    "COLORTERM",
    "VTE_VERSION",
    "ITERM_SESSION_ID",
    "ITERM_PROFILE",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "WEZTERM_PANE",
    "WEZTERM_EXECUTABLE",
    "ALACRITTY_WINDOW_ID",
    "ALACRITTY_SOCKET",
    "KONSOLE_DBUS_SESSION",
    "GNOME_TERMINAL_SCREEN",
];
/// PATH used when the environment has none (as `execvp` does).
#[cfg(unix)]
pub(super) const DEFAULT_PATH: &str =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
impl Session {
    /// Starts `opts.command` in a new pseudo-terminal.
    ///
    /// Fails with `ERR_SPAWN` (errno and path set) when the program or the
    /// working directory cannot be used, and `ERR_INVALID_ARG` for bad options.
    ///
    /// Output is kept for a listener from the first byte (unless
    /// `stream_output` is off); attach one with [`Session::attach`].
    pub fn spawn(opts: SpawnOptions) -> Result<Session> {
        let mut prepared = prepare(&opts)?;
        // Before the program starts: a recording that cannot be written
        // fails the spawn, and nothing runs.
        let recorder = match &opts.record {
            Some(path) => Some(Recorder::create(path, &record_header(&opts, &prepared))?),
            None => None,
        };
        let spawned = match opts.pipes {
            None => spawn_pty(&opts, &prepared),
            Some(pipes) => spawn_pipes(&prepared, pipes),
        };
        let (io, pid) = match spawned {
            Ok(spawned) => spawned,
            Err(err) => {
                if let Some(recorder) = recorder {
                    recorder.discard();
                }
                return Err(err);
            }
        };
        if let Some(sandbox) = prepared.sandbox.as_mut() {
            sandbox.hold_namespaces(pid);
        }
        let sandbox = prepared.sandbox.take().map(|s| s.into_applied());
        let (sandbox, sandbox_temp) = match sandbox {
            Some((applied, temp)) => (Some(applied), Some(temp)),
            None => (None, None),
        };
        let exit_watch = ExitWatch::new(pid).map_err(|e| Error::io("watch for exit", &e))?;
        let waker = Waker::new().map_err(|e| Error::io("create wake descriptor", &e))?;
        let now = Instant::now();
        let (outputs, input_fd, pty_fd) = io.descriptors();
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                // Without a model (`opts.model` off) the size may be beyond
                // the model's limits: a blank one of the smallest size stands in.
                model: if opts.model {
                    Model::new(opts.rows, opts.cols, opts.scrollback)
                } else {
                    Model::new(2, 2, 0)
                },
                model_on: opts.model,
                transcript: Transcript::new(opts.transcript_limit),
                seq: 0,
                last_activity: now,
                outbox: Outbox::default(),
                sink_output: opts.stream_output,
                sink_raw: opts.stream_raw,
                answer_queries: opts.answer_queries,
                sink: None,
                wake_pending: false,
                paused: false,
                user_paused: false,
                input_fd,
                pty_fd,
                pts_name: pty_fd
                    .and_then(crate::core::tty::slave_path)
                    .and_then(|p| p.into_string().ok()),
                queue: VecDeque::new(),
                writes: 0,
                input_seq: 0,
                probe_slave: None,
                child_exited: false,
                commands: Vec::new(),
                exit: None,
                capture: opts.capture_limit.map(Capture::new),
                stderr: opts.pipes.map(|_| VecDeque::new()),
                capture_stderr: opts.pipes.is_some_and(|p| p.capture_stderr),
            }),
            reader: Mutex::new(Reader {
                decoders: outputs.iter().map(|_| Utf8Decoder::default()).collect(),
                batch: Vec::new(),
                replies: Vec::new(),
                last_read: now,
            }),
            changed: watch::channel(0).0,
            listener_hold: AtomicU64::new(0),
            holds: AtomicU64::new(0),
            waker,
            recorder: recorder.map(Mutex::new),
            terminal: OnceLock::new(),
            sandbox,
        });
        let session_loop = Loop {
            shared: shared.clone(),
            outputs,
            input_fd,
            io,
            pid,
            root: ProcRef::of(pid),
            exit_watch,
            deadline: opts.timeout.map(|t| time::later(now, t)),
            status: None,
            exited_at: None,
            drain_held: false,
            drain_idle: opts.drain_idle,
            termination: None,
            hold_seen: None,
            wake_owed: false,
            _sandbox_temp: sandbox_temp,
        };
        std::thread::Builder::new()
            .name(format!("ptypilot-session-{pid}"))
            .stack_size(256 << 10)
            .spawn(move || session_loop.run())
            .map_err(|e| Error::io("start the session thread", &e))?;
        Ok(Session { shared, pid })
    }
}

/// The recording's header: the size, the command line and `TERM` as the
/// program gets it.
fn record_header<'a>(opts: &SpawnOptions, prepared: &'a Prepared) -> Header<'a> {
    let mut command = opts.command.clone();
    for arg in &opts.args {
        command.push(' ');
        command.push_str(arg);
    }
    Header {
        cols: opts.cols,
        rows: opts.rows,
        command,
        term: prepared
            .env
            .iter()
            .find(|(k, _)| k == "TERM")
            .map(|(_, v)| v.as_str()),
    }
}

/// Everything `spawn` needs, resolved and checked.
pub(super) struct Prepared {
    program: PathBuf,
    argv: Vec<OsString>,
    env: Vec<(String, String)>,
    cwd: PathBuf,
    /// The child gets `env` as it is (no `SHELL` added). (Unix only: on
    /// Windows no `SHELL` is added, and `run_as` is refused.)
    #[cfg_attr(windows, allow(dead_code))]
    exact_env: bool,
    #[cfg_attr(windows, allow(dead_code))]
    run_as: Option<super::RunAs>,
    /// The sandbox, ready for the child (`None`: off).
    pub(super) sandbox: Option<sandbox::Prepared>,
}

#[cfg(unix)]
/// A program and argv that run another one (the macOS sandbox's `sandbox-exec`).
type Wrapper = Option<(PathBuf, Vec<OsString>)>;

#[cfg(unix)]
impl Prepared {
    /// The sandbox's wrapper around the program, where it has one (macOS),
    /// for a program on the terminal `tty` (when on one).
    fn wrapped(&self, tty: Option<&Path>) -> Wrapper {
        self.sandbox
            .as_ref()
            .and_then(|s| s.wrap_argv(&self.program, &self.argv, tty))
    }

    /// What to execute: the wrapper (from [`Prepared::wrapped`]) or the
    /// program itself, and its argv.
    fn launch<'a>(&'a self, wrapped: &'a Wrapper) -> (&'a Path, &'a [OsString]) {
        match wrapped {
            Some((program, argv)) => (program, argv),
            None => (&self.program, &self.argv),
        }
    }
}

pub(super) fn prepare(opts: &SpawnOptions) -> Result<Prepared> {
    if opts.command.is_empty() {
        return Err(Error::invalid_arg("command must be a non-empty string"));
    }
    if opts.command.contains('\0') || opts.args.iter().any(|a| a.contains('\0')) {
        return Err(Error::invalid_arg(
            "command and args must not contain NUL characters",
        ));
    }
    check_env(&opts.env)?;
    if let Some(cwd) = &opts.cwd
        && cwd.as_os_str().as_encoded_bytes().contains(&0)
    {
        return Err(Error::invalid_arg(format!(
            "cwd must not contain NUL characters, got {cwd:?}"
        )));
    }
    if let Some(shell) = opts
        .shell
        .as_deref()
        .filter(|s| s.is_empty() || s.contains('\0'))
    {
        return Err(Error::invalid_arg(format!(
            "shell must be a shell name or path, got {shell:?}"
        )));
    }
    if let Some(term) = opts
        .term
        .as_deref()
        .filter(|t| t.is_empty() || t.contains(['\0', '=']))
    {
        return Err(Error::invalid_arg(format!(
            "term must be a terminal name, got {term:?}"
        )));
    }
    if cfg!(windows) && opts.run_as.is_some() {
        return Err(Error::new(
            ErrorCode::Unsupported,
            "runAs is not supported on Windows (a program runs as this process's user)",
        ));
    }
    let cwd = resolve_cwd(opts.cwd.as_deref())?;
    let mut env = build_env(opts);
    let sandbox = sandbox::prepare(&opts.sandbox, &cwd, &mut env)?;
    // Windows spells it `Path`, and names are case-insensitive there.
    let path_env = env
        .iter()
        .find(|(k, _)| k == "PATH" || cfg!(windows) && k.eq_ignore_ascii_case("PATH"))
        .map(|(_, v)| v.as_str());
    let (program_name, args) = match &opts.shell {
        Some(shell) => {
            let mut line = opts.command.clone();
            for arg in &opts.args {
                line.push(' ');
                line.push_str(&shell_quote(arg));
            }
            (shell.clone(), shell_args(shell, line))
        }
        None => (opts.command.clone(), opts.args.clone()),
    };
    let program = resolve_program(&program_name, path_env, &cwd)?;
    // argv[0] is the name the user typed when it was found on PATH, as a shell
    // passes it; otherwise the full path. `posix_spawn` runs `program` itself;
    // portable-pty (where it spawns) looks argv[0] up again with the same
    // PATH, which finds the same file. On Windows `program` is
    // `CreateProcess`'s application name, and argv[0] only the command line's
    // first word.
    let argv0 = if program_name.contains(['/', std::path::MAIN_SEPARATOR]) || path_env.is_none() {
        program.clone().into_os_string()
    } else {
        OsString::from(&program_name)
    };
    let mut argv = vec![argv0];
    argv.extend(args.into_iter().map(OsString::from));
    Ok(Prepared {
        program,
        argv,
        env,
        cwd,
        exact_env: opts.exact_env,
        run_as: opts.run_as,
        sandbox,
    })
}

/// Checks the caller's variables: a name must be non-empty without `=` or
/// NUL (an `=` would set another variable: `PATH=/x:` is `PATH`), a value
/// without NUL. `ERR_INVALID_ARG` naming the variable.
pub fn check_env(env: &[(String, Option<String>)]) -> Result<()> {
    for (key, value) in env {
        if key.is_empty() || key.contains(['=', '\0']) {
            return Err(Error::invalid_arg(format!(
                "env: {key:?} is not a variable name (it must be non-empty, without '=' or NUL)"
            )));
        }
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(Error::invalid_arg(format!(
                "env.{key} must not contain NUL characters"
            )));
        }
    }
    Ok(())
}

/// The error a path that is not a directory gives: `ENOTDIR`, or on
/// Windows `ERROR_DIRECTORY`.
#[cfg(unix)]
const NOT_A_DIRECTORY: i32 = libc::ENOTDIR;
#[cfg(windows)]
const NOT_A_DIRECTORY: i32 = 267;

/// The working directory, checked: it must exist and be a directory.
pub(super) fn resolve_cwd(cwd: Option<&Path>) -> Result<PathBuf> {
    let here = std::env::current_dir().map_err(|e| Error::spawn("chdir", ".", &e))?;
    let Some(cwd) = cwd else {
        return Ok(here);
    };
    let full = here.join(cwd);
    match std::fs::metadata(&full) {
        Ok(meta) if meta.is_dir() => Ok(full),
        Ok(_) => Err(Error::spawn(
            "chdir",
            full.display().to_string(),
            &std::io::Error::from_raw_os_error(NOT_A_DIRECTORY),
        )),
        Err(e) => Err(Error::spawn("chdir", full.display().to_string(), &e)),
    }
}

/// The child's environment: the inherited one minus the parent's terminal
/// identity, then the caller's overrides, then `TERM`.
pub(super) fn build_env(opts: &SpawnOptions) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    if opts.inherit_env {
        let base: Vec<(String, String)> = match &opts.base_env {
            Some(base) => base.clone(),
            None => std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        };
        env.extend(
            base.into_iter()
                .filter(|(k, _)| !TERMINAL_IDENTITY_VARS.contains(&k.as_str())),
        );
    }
    let mut explicit_term = false;
    for (key, value) in &opts.env {
        env.retain(|(k, _)| k != key);
        if let Some(value) = value {
            explicit_term |= key == "TERM";
            env.push((key.clone(), value.clone()));
        }
    }
    if opts.term.is_some() || !explicit_term {
        let term = opts
            .term
            .clone()
            .unwrap_or_else(|| "xterm-256color".to_owned());
        env.retain(|(k, _)| k != "TERM");
        env.push(("TERM".to_owned(), term));
    }
    env
}

#[cfg(unix)]
/// Finds the program the way `execvp` would, reporting why it cannot run.
pub fn resolve_program(program: &str, path_env: Option<&str>, cwd: &Path) -> Result<PathBuf> {
    use nix::unistd::{AccessFlags, access};
    let check = |candidate: &Path| -> std::result::Result<(), std::io::Error> {
        let meta = std::fs::metadata(candidate)?;
        if meta.is_dir() {
            return Err(std::io::Error::from_raw_os_error(libc::EACCES));
        }
        access(candidate, AccessFlags::X_OK)
            .map_err(|e| std::io::Error::from_raw_os_error(e as i32))
    };
    if program.contains('/') {
        let candidate = cwd.join(program);
        return match check(&candidate) {
            Ok(()) => Ok(candidate),
            Err(e) => Err(Error::spawn("spawn", program, &e)),
        };
    }
    let mut denied: Option<(PathBuf, std::io::Error)> = None;
    for dir in path_env.unwrap_or(DEFAULT_PATH).split(':') {
        let dir = if dir.is_empty() {
            Path::new(".")
        } else {
            Path::new(dir)
        };
        let candidate = cwd.join(dir).join(program);
        match check(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {}
            Err(e) => {
                denied.get_or_insert((candidate, e));
            }
        }
    }
    Err(match denied {
        Some((path, e)) => Error::spawn("spawn", path.display().to_string(), &e),
        None => Error::spawn(
            "spawn",
            program,
            &std::io::Error::from_raw_os_error(libc::ENOENT),
        ),
    })
}

/// The arguments that make `shell` run `line`: `-lc` for a POSIX shell; on
/// Windows `/d /s /c` for `cmd` and `-NoLogo -NoProfile -Command` for
/// PowerShell (`powershell`, `pwsh`).
fn shell_args(shell: &str, line: String) -> Vec<String> {
    if cfg!(windows) {
        let name = Path::new(shell)
            .file_stem()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name == "cmd" {
            return vec!["/d".into(), "/s".into(), "/c".into(), line];
        }
        if name == "powershell" || name == "pwsh" {
            return vec![
                "-NoLogo".into(),
                "-NoProfile".into(),
                "-Command".into(),
                line,
            ];
        }
    }
    vec!["-lc".to_owned(), line]
}

/// Quotes `arg` for a POSIX shell command line.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return arg.to_owned();
    }
    format!("'{}'", arg.replace('\'', "'\\''"))
}

#[cfg(unix)]
/// What the session thread owns: the descriptors and the child handle. Dropping
/// it closes the descriptors.
pub(super) enum Io {
    /// The pty master carries output in and input out.
    Pty {
        master: Box<dyn MasterPty + Send>,
        /// portable-pty's handle when it spawned the child, kept as long as the
        /// session; `None` after `posix_spawn` (Linux), which leaves only a
        /// pid. Either way the loop reaps the child itself, by pid (to see the
        /// signal that killed it).
        _child: Option<Box<dyn portable_pty::Child + Send + Sync>>,
    },
    /// Plain pipes.
    Pipes {
        stdout: OwnedFd,
        stderr: OwnedFd,
        stdin: Option<OwnedFd>,
        /// Never waited on by std; the loop reaps the child itself.
        _child: std::process::Child,
    },
}

#[cfg(unix)]
impl Io {
    /// The outputs to read, the input descriptor and the pty master.
    pub(super) fn descriptors(&self) -> (Vec<Output>, Option<RawFd>, Option<RawFd>) {
        let output = |fd: RawFd, stream| Output {
            fd,
            stream,
            eof: false,
        };
        match self {
            Io::Pty { master, .. } => {
                let fd = master.as_raw_fd().unwrap_or(-1);
                (vec![output(fd, Stream::Terminal)], Some(fd), Some(fd))
            }
            Io::Pipes {
                stdout,
                stderr,
                stdin,
                ..
            } => (
                vec![
                    output(stdout.as_raw_fd(), Stream::Stdout),
                    output(stderr.as_raw_fd(), Stream::Stderr),
                ],
                stdin.as_ref().map(AsRawFd::as_raw_fd),
                None,
            ),
        }
    }
}

#[cfg(unix)]
/// Opens a pty and starts the program on it.
pub(super) fn spawn_pty(opts: &SpawnOptions, prepared: &Prepared) -> Result<(Io, Pid)> {
    let pty = portable_pty::native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: opts.rows,
            cols: opts.cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| Error::new(ErrorCode::Internal, format!("cannot open a pty: {e}")))?;
    if opts.input_flags != 0
        && let Some(fd) = pair.master.as_raw_fd()
    {
        crate::core::pty::add_input_flags(fd, opts.input_flags)
            .map_err(|e| Error::io("tcsetattr on the pty", &e))?;
    }
    let (child, pid) = spawn_on_pty(&pair, prepared)?;
    // The child has its own copy; ours must go so that end-of-file is seen
    // when the program and its descendants close the terminal.
    drop(pair.slave);
    let master = pair.master;
    let fd = master
        .as_raw_fd()
        .ok_or_else(|| Error::new(ErrorCode::Internal, "the pty master has no descriptor"))?;
    set_nonblocking(fd).map_err(|e| Error::io("fcntl(O_NONBLOCK) on pty", &e))?;
    Ok((
        Io::Pty {
            master,
            _child: child,
        },
        pid,
    ))
}

#[cfg(unix)]
/// Starts the program as a session leader with the pty's slave as its
/// controlling terminal and stdin/stdout/stderr, no other descriptor, default
/// signal dispositions and an empty signal mask.
///
/// On Linux with glibc this is `posix_spawn` (see `pty::unix::spawn`): forking the
/// Node process, as portable-pty's `pre_exec` requires, copies its page tables,
/// makes both processes take copy-on-write faults afterwards and holds the JS
/// thread until the child has run the closure; `posix_spawn` borrows the
/// parent's memory until `execve` and costs a fraction of that. The controlling
/// terminal: the child calls `setsid` and then opens the slave by its path
/// without `O_NOCTTY` as fd 0; on Linux a session leader without a controlling
/// terminal that opens one that way acquires it. Elsewhere, or when the tty
/// has no name or glibc lacks the file actions it needs, it is portable-pty's
/// `spawn_command` (`pre_exec`: setsid, `TIOCSCTTY`, signal reset, closing
/// descriptors).
pub(super) fn spawn_on_pty(
    pair: &portable_pty::PtyPair,
    prepared: &Prepared,
) -> Result<(Option<Box<dyn portable_pty::Child + Send + Sync>>, Pid)> {
    let path = || prepared.program.display().to_string();
    let tty_name = pair.master.tty_name();
    let wrapped = prepared.wrapped(tty_name.as_deref());
    let (program_path, argv) = prepared.launch(&wrapped);
    let program = crate::core::pty::unix::child::Program {
        program: program_path,
        argv,
        env: &prepared.env,
        cwd: &prepared.cwd,
        add_shell: !prepared.exact_env,
    };
    // A sandbox applied in the child needs code of ours between fork and
    // exec, as a change of user does: `posix_spawn` runs none.
    let in_child = prepared.sandbox.as_ref().filter(|_| wrapped.is_none());
    // So does a `posix_spawn` that returns before the exec (under qemu-user):
    // it cannot report why a program did not start; our child's pipe can.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let spawn_reports = crate::core::pty::unix::spawn::reports_exec_errors();
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let spawn_reports = true;
    if prepared.run_as.is_some() || in_child.is_some() || !spawn_reports {
        let tty = pair
            .master
            .tty_name()
            .ok_or_else(|| Error::new(ErrorCode::Internal, "the pty has no name to open it by"))?;
        let pid =
            crate::core::pty::unix::fork::spawn_forked(&tty, &program, prepared.run_as, in_child)
                .map_err(|e| spawn_error(prepared, path(), &e))?;
        return Ok((None, pid));
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(ext) = crate::core::pty::unix::spawn::Extensions::get()
        && let Some(tty) = pair.master.tty_name()
    {
        let pid = crate::core::pty::unix::spawn::spawn_on_tty(ext, &tty, &program)
            .map_err(|e| Error::spawn("spawn", path(), &e))?;
        return Ok((None, pid));
    }
    let (child, pid) = spawn_command(&*pair.slave, argv, prepared)?;
    Ok((Some(child), pid))
}

#[cfg(unix)]
/// Starts `argv` on portable-pty's `slave` (its `pre_exec`) with the
/// prepared environment and working directory: the child and its pid.
pub(super) fn spawn_command(
    slave: &dyn portable_pty::SlavePty,
    argv: &[OsString],
    prepared: &Prepared,
) -> Result<(
    Box<dyn portable_pty::Child + Send + Sync>,
    crate::core::proc_tree::Pid,
)> {
    let path = || prepared.program.display().to_string();
    let mut builder = portable_pty::CommandBuilder::from_argv(argv.to_vec());
    builder.env_clear();
    for (k, v) in &prepared.env {
        builder.env(k, v);
    }
    builder.cwd(&prepared.cwd);
    let child =
        slave
            .spawn_command(builder)
            .map_err(|e| match e.downcast_ref::<std::io::Error>() {
                Some(io) => Error::spawn("spawn", path(), io),
                None => Error {
                    code: ErrorCode::Spawn,
                    message: format!("spawn {}: {e}", path()),
                    errno: None,
                    path: Some(path()),
                },
            })?;
    let pid = child
        .process_id()
        .map(|p| p as crate::core::proc_tree::Pid)
        .ok_or_else(|| Error::new(ErrorCode::Internal, "the spawned program has no process id"))?;
    Ok((child, pid))
}

#[cfg(unix)]
/// Starts the program with plain pipes, in a process group of its own (so it
/// can be terminated as a group, like a pty session).
pub(super) fn spawn_pipes(prepared: &Prepared, pipes: PipeOptions) -> Result<(Io, Pid)> {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let wrapped = prepared.wrapped(None);
    let (program, argv) = prepared.launch(&wrapped);
    let mut cmd = std::process::Command::new(program);
    cmd.arg0(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .envs(prepared.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&prepared.cwd)
        .stdin(if pipes.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let in_child = wrapped.is_none() && prepared.sandbox.is_some();
    // std changes the user before `pre_exec`; the sandbox's namespaces need
    // root's rights, so with one the child changes it after (below).
    if let Some(run_as) = prepared.run_as
        && !in_child
    {
        cmd.uid(run_as.uid).gid(run_as.gid);
    }
    if in_child && let Some(sandbox) = &prepared.sandbox {
        let run_as = prepared.run_as;
        // `pre_exec` takes a 'static closure; `cmd` runs it only within
        // `spawn` below, while `prepared` lives, so the address stays valid.
        let address = sandbox as *const sandbox::Prepared as usize;
        // SAFETY: the closure runs in the child after fork and makes system
        // calls only (see `apply_in_child`). Every descriptor from 3 on is
        // then marked close-on-exec: std closes none, and the program must
        // inherit only its three pipes.
        unsafe {
            cmd.pre_exec(move || {
                let sandbox = &*(address as *const sandbox::Prepared);
                sandbox
                    .apply_in_child()
                    .map_err(std::io::Error::from_raw_os_error)?;
                if let Some(run_as) = run_as {
                    // A fork of its own: one thread, so libc's calls are
                    // safe here.
                    let groups = [run_as.gid as libc::gid_t];
                    if libc::setgroups(1, groups.as_ptr()) != 0
                        || libc::setgid(run_as.gid as libc::gid_t) != 0
                        || libc::setuid(run_as.uid as libc::uid_t) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                close_on_exec_from(3);
                Ok(())
            });
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| spawn_error(prepared, prepared.program.display().to_string(), &e))?;
    let pid = child.id() as Pid;
    let stdout: OwnedFd = child.stdout.take().expect("piped stdout").into();
    let stderr: OwnedFd = child.stderr.take().expect("piped stderr").into();
    let stdin: Option<OwnedFd> = child.stdin.take().map(Into::into);
    for fd in [Some(&stdout), Some(&stderr), stdin.as_ref()]
        .into_iter()
        .flatten()
    {
        set_nonblocking(fd.as_raw_fd()).map_err(|e| Error::io("fcntl(O_NONBLOCK) on pipe", &e))?;
    }
    Ok((
        Io::Pipes {
            stdout,
            stderr,
            stdin,
            _child: child,
        },
        pid,
    ))
}

#[cfg(unix)]
/// `ERR_SPAWN` for `path`; with a sandbox, a failure before the program
/// ran is the sandbox's (`ERR_SANDBOX_UNAVAILABLE` naming the errno), since
/// the child applies it before `execve` and reports the step that failed.
fn spawn_error(prepared: &Prepared, path: String, err: &std::io::Error) -> Error {
    match sandbox::failed_step(err).filter(|_| prepared.sandbox.is_some()) {
        Some(errno) => {
            let os = std::io::Error::from_raw_os_error(errno);
            sandbox::unavailable(&format!(
                "applying it to the program failed ({}: {os})",
                crate::core::error::errno_name(errno)
            ))
        }
        None => Error::spawn("spawn", path, err),
    }
}

#[cfg(unix)]
/// Marks every descriptor from `first` on close-on-exec (`close_range`
/// with `CLOSE_RANGE_CLOEXEC`, Linux 5.11); async-signal-safe.
fn close_on_exec_from(first: u32) {
    #[cfg(target_os = "linux")]
    // SAFETY: close_range takes plain integers.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            first,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
    }
    #[cfg(not(target_os = "linux"))]
    let _ = first;
}
