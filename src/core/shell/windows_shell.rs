//! The persistent shell on Windows: `cmd.exe` (run under Wine here), and
//! PowerShell (`powershell.exe`, `pwsh`: built, not run).
//!
//! The shell runs on a pseudo console like any session and reads its lines
//! from it. For each run the command text goes to a private file, and one
//! line is typed that prints a start marker, runs the file, then prints an
//! end marker with the exit status and the shell's current directory:
//!
//! ```text
//! cmd:  echo __pp^_NONCE^_C&(call )&set "__pp_st="&call "FILE" <nul&if defined __pp_st
//!       (echo __pp^_NONCE^_E^_!__pp_st!^_!CD!) else (echo __pp^_NONCE^_E^_!ERRORLEVEL!^_!CD!)
//! pwsh: Write-Host ('__pp'+'_NONCE_C'); $global:LASTEXITCODE=0; . 'FILE' <# ... #>;
//!       Write-Host ('__pp'+'_NONCE_E_'+$st+'_'+(Get-Location).Path)
//! ```
//!
//! The console echoes the typed line, but there the markers are written
//! differently (`^_` in cmd, a concatenation in PowerShell), so only what
//! the shell prints matches `__pp_NONCE_…`. The markers are plain text, not
//! OSC sequences: a typed ESC is the Escape key, which clears cmd's line.
//! cmd starts with `/d /q /v:on`: no AutoRun, echo off (no prompt, no
//! command echo), and delayed expansion, so `!ERRORLEVEL!` is read after the
//! file ran; `(call )` sets the error level to 0 first, as a file that runs
//! only `echo` leaves it as it was.
//!
//! The output is what the transcript holds between the two markers: the
//! console host's rendering, escape sequences removed (see
//! docs/how-it-works.md, "Windows"). A timeout or an abort ends the shell's
//! whole Job Object (Ctrl+C would ask cmd "Terminate batch job (Y/N)?"); the
//! next run starts a new shell in the directory the last end marker named.
//! A command that ends the shell itself (`exit 3`) has the shell's exit code
//! as its own, and the next run starts a new one too.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::proc_tree::Pid;
use crate::core::session::{Session, SpawnOptions};
use crate::core::transcript::ReadOptions;

/// How long a new shell may take to answer its first line (Wine starts
/// slowly).
pub const STARTUP_LIMIT: Duration = Duration::from_secs(30);
/// Default bound on the output a run's result keeps: 8 MiB (head and tail).
pub const DEFAULT_MAX_OUTPUT: usize = 8 << 20;

/// The command's standard input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stdin {
    /// `nul`: a command that reads input gets end-of-file at once.
    #[default]
    Null,
    /// The console: the command reads what is written to the shell.
    Terminal,
}

/// Which Windows shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsShell {
    /// `cmd.exe`.
    Cmd,
    /// `powershell.exe` (5.1) or `pwsh` (7): built, not run here.
    PowerShell,
}

impl WindowsShell {
    /// The kind for a program name or path (`cmd`, `cmd.exe`, `C:\…\pwsh.exe`).
    pub fn detect(program: &str) -> Option<WindowsShell> {
        let stem = Path::new(program)
            .file_stem()?
            .to_string_lossy()
            .to_ascii_lowercase();
        match stem.as_str() {
            "cmd" => Some(WindowsShell::Cmd),
            "powershell" | "pwsh" => Some(WindowsShell::PowerShell),
            _ => None,
        }
    }

    fn args(self) -> Vec<String> {
        match self {
            WindowsShell::Cmd => vec!["/d".into(), "/q".into(), "/v:on".into()],
            WindowsShell::PowerShell => vec!["-NoLogo".into(), "-NoProfile".into()],
        }
    }

    /// The command file's extension.
    fn extension(self) -> &'static str {
        match self {
            WindowsShell::Cmd => "cmd",
            WindowsShell::PowerShell => "ps1",
        }
    }
}

/// `ERR_INVALID_ARG` unless `shell` is `cmd` or PowerShell.
pub fn check_shell_name(shell: &str) -> Result<()> {
    if WindowsShell::detect(shell).is_none() {
        return Err(Error::invalid_arg(format!(
            "options.shell {shell:?} is not a Windows shell; use cmd.exe, powershell.exe or pwsh"
        )));
    }
    Ok(())
}

/// The line typed for one run (see the module docs). `file` is the command
/// file, `nonce` the shell's.
pub fn run_line(kind: WindowsShell, nonce: &str, file: &Path, stdin: Stdin) -> String {
    let file = file.display();
    match kind {
        WindowsShell::Cmd => {
            let input = if stdin == Stdin::Null { " <nul" } else { "" };
            // The file's last line keeps its error level in __pp_st (Wine 8's
            // `call` reports any failure as 1); `exit /b N` skips that line,
            // and then the level after `call` is the status.
            format!(
                "echo __pp^_{nonce}^_C&(call )&set \"__pp_st=\"&call \"{file}\"{input}&if defined __pp_st (echo __pp^_{nonce}^_E^_!__pp_st!^_!CD!) else (echo __pp^_{nonce}^_E^_!ERRORLEVEL!^_!CD!)\r"
            )
        }
        WindowsShell::PowerShell => {
            // PowerShell has no input redirection for a script: `stdin` is
            // the console either way.
            let _ = stdin;
            format!(
                "Write-Host ('__pp'+'_{nonce}_C'); $global:LASTEXITCODE=0; $__pp_ok=$true; try {{ . '{file}' }} catch {{ $__pp_ok=$false; Write-Host $_ }}; \
                 $__pp_st = if (-not $__pp_ok -or -not $?) {{ if ($LASTEXITCODE) {{ $LASTEXITCODE }} else {{ 1 }} }} else {{ [int]$LASTEXITCODE }}; \
                 Write-Host ('__pp'+'_{nonce}_E_'+$__pp_st+'_'+(Get-Location).Path)\r"
            )
        }
    }
}

/// What the typed line printed: `(exit status, directory, end offset)` of
/// the end marker in `text`, if it is there whole (its line ended).
pub fn find_end(text: &str, nonce: &str) -> Option<(i32, String, usize)> {
    let tag = format!("__pp_{nonce}_E_");
    let at = text.find(&tag)?;
    let rest = &text[at + tag.len()..];
    let line_end = rest.find('\n')?;
    let line = rest[..line_end].trim_end_matches('\r');
    let (status, cwd) = line.split_once('_')?;
    Some((status.trim().parse().ok()?, cwd.trim().to_owned(), at))
}

/// Where the command's output starts in `text`: after the start marker's
/// line.
pub fn find_start(text: &str, nonce: &str) -> Option<usize> {
    let tag = format!("__pp_{nonce}_C");
    let at = text.find(&tag)?;
    let nl = text[at..].find('\n')?;
    Some(at + nl + 1)
}

/// How to start the shell.
#[derive(Debug, Clone)]
pub struct ShellOptions {
    /// The shell program; `None`: `cmd.exe`.
    pub shell: Option<String>,
    /// Its starting directory; `None` is the current directory.
    pub cwd: Option<PathBuf>,
    /// Variables set (`Some`) or removed (`None`) over the inherited environment.
    pub env: Vec<(String, Option<String>)>,
    /// The environment to inherit; `None` is this process's environment.
    pub base_env: Option<Vec<(String, String)>>,
    /// Console width.
    pub cols: u16,
    /// Console height.
    pub rows: u16,
    /// Variables set (`Some`) or removed (`None`) in the shell's environment.
    pub session_env: Vec<(String, Option<String>)>,
    /// Not on Windows: a snapshot is refused (`ERR_UNSUPPORTED`).
    pub snapshot: Option<PathBuf>,
    /// The sandbox (Windows has none: anything but off is refused when the
    /// shell starts).
    pub sandbox: crate::core::sandbox::Policy,
}

impl Default for ShellOptions {
    fn default() -> Self {
        ShellOptions {
            shell: None,
            cwd: None,
            env: Vec::new(),
            base_env: None,
            cols: 80,
            rows: 24,
            session_env: Vec::new(),
            snapshot: None,
            sandbox: crate::core::sandbox::Policy::default(),
        }
    }
}

impl ShellOptions {
    /// Checks what can be checked before the shell starts.
    pub fn check(&self) -> Result<()> {
        if self.snapshot.is_some() {
            return Err(Error::new(
                ErrorCode::Unsupported,
                "options.snapshotPath is not supported on Windows (a snapshot is POSIX shell code)",
            ));
        }
        crate::core::session::check_env(&self.session_env)
    }
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The command text: one or more lines for the shell.
    pub command: String,
    /// Run it in this directory (`pushd`/`Push-Location` around it).
    pub cwd: Option<String>,
    /// Variables set for this command only (`setlocal` in cmd; restored in PowerShell).
    pub env: Vec<(String, Option<String>)>,
    /// Stop the command after this long (`timed_out`).
    pub timeout: Option<Duration>,
    /// Output kept in the result (head and tail), in bytes.
    pub max_output: usize,
    /// The command's standard input.
    pub stdin: Stdin,
}

impl RunOptions {
    /// Options that run `command` with the defaults.
    pub fn new(command: impl Into<String>) -> Self {
        RunOptions {
            command: command.into(),
            cwd: None,
            env: Vec::new(),
            timeout: None,
            max_output: DEFAULT_MAX_OUTPUT,
            stdin: Stdin::Null,
        }
    }

    /// Checks the options (`ERR_INVALID_ARG` naming the option).
    pub fn check(&self) -> Result<()> {
        if self.command.is_empty() || self.command.contains('\0') {
            return Err(Error::invalid_arg(
                "options.command must be a non-empty string without NUL characters",
            ));
        }
        if let Some(cwd) = &self.cwd
            && (cwd.is_empty() || cwd.contains(['\0', '"', '\'']))
        {
            return Err(Error::invalid_arg(format!(
                "options.cwd must be a directory path without quotes, got {cwd:?}"
            )));
        }
        crate::core::session::check_env(&self.env)
    }

    /// The command file's text for `kind`.
    fn file_text(&self, kind: WindowsShell) -> String {
        let mut text = String::new();
        match kind {
            WindowsShell::Cmd => {
                let scoped = self.cwd.is_some() || !self.env.is_empty();
                if scoped {
                    text.push_str("@setlocal\r\n");
                }
                for (k, v) in &self.env {
                    text.push_str(&format!("@set \"{k}={}\"\r\n", v.as_deref().unwrap_or("")));
                }
                if let Some(cwd) = &self.cwd {
                    text.push_str(&format!("@cd /d \"{cwd}\" || exit /b 1\r\n"));
                }
                for line in self.command.lines() {
                    text.push_str(line);
                    text.push_str("\r\n");
                }
                // %ERRORLEVEL% is read when this line is, after the command
                // ran; the set runs after endlocal, so it outlives the scope.
                if scoped {
                    text.push_str("@endlocal & set \"__pp_st=%ERRORLEVEL%\"\r\n");
                } else {
                    text.push_str("@set \"__pp_st=%ERRORLEVEL%\"\r\n");
                }
            }
            WindowsShell::PowerShell => {
                for (k, v) in &self.env {
                    let v = v.as_deref().unwrap_or("").replace('\'', "''");
                    text.push_str(&format!("$env:{k} = '{v}'\r\n"));
                }
                if let Some(cwd) = &self.cwd {
                    text.push_str(&format!("Push-Location -LiteralPath '{cwd}'\r\n"));
                }
                text.push_str(&self.command);
                text.push_str("\r\n");
                if self.cwd.is_some() {
                    text.push_str("Pop-Location\r\n");
                }
            }
        }
        text
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// The command's exit status; `None` when it was stopped (timeout, abort).
    pub exit_code: Option<i32>,
    /// What the command printed, escape sequences removed, `\n` line ends.
    pub output: String,
    /// The run's timeout stopped it.
    pub timed_out: bool,
    /// An abort stopped it.
    pub cancelled: bool,
    /// Output beyond the limit was left out (head and tail kept).
    pub truncated: bool,
    /// Why the shell was replaced after this command (it exited, or was
    /// ended to stop the command).
    pub warning: Option<String>,
}

/// A shell that is running.
struct Live {
    session: Session,
    kind: WindowsShell,
    nonce: String,
    dir: PathBuf,
}

impl Drop for Live {
    fn drop(&mut self) {
        self.session.kill_now();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct State {
    live: Option<Arc<Live>>,
    busy: bool,
    abort: Option<CancellationToken>,
    closed: bool,
    input: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// The directory the last command ended in: a new shell starts there.
    cwd: Option<PathBuf>,
    runs: u64,
}

/// A persistent Windows shell that runs one command at a time (see the
/// module docs). Use it through an `Arc`.
pub struct Shell {
    options: ShellOptions,
    state: Mutex<State>,
    idle: watch::Sender<bool>,
}

/// The right to run one command.
pub struct RunTicket {
    shell: Arc<Shell>,
    abort: CancellationToken,
    input: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
}

impl RunTicket {
    /// Lets [`Shell::write`] send input to this run's command from now on.
    pub fn open_input(&mut self) {
        if self.input.is_none() {
            let (tx, rx) = mpsc::unbounded_channel();
            self.shell.lock().input = Some(tx);
            self.input = Some(rx);
        }
    }

    /// Runs one command; `on_output` gets its output in pieces as it comes.
    pub async fn run<F, Fut>(
        mut self,
        run: RunOptions,
        cancel: CancellationToken,
        on_output: F,
    ) -> Result<RunResult>
    where
        F: Fn(String) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        if run.stdin == Stdin::Terminal {
            self.open_input();
        }
        let shell = self.shell.clone();
        let live = shell.live().await?;
        let n = {
            let mut state = shell.lock();
            state.runs += 1;
            state.runs
        };
        let file = live.dir.join(format!("cmd-{n}.{}", live.kind.extension()));
        std::fs::write(&file, run.file_text(live.kind))
            .map_err(|e| Error::io("write the command file", &e))?;
        let start_seq = live.session.seq();
        live.session
            .write(run_line(live.kind, &live.nonce, &file, run.stdin).as_bytes())?;
        let deadline = run.timeout.map(|t| tokio::time::Instant::now() + t);
        let mut seq = start_seq;
        let mut delivered = 0usize;
        let stop = loop {
            let text = live
                .session
                .read(&ReadOptions {
                    since: Some(start_seq),
                    ..ReadOptions::default()
                })?
                .text;
            if let Some(begin) = find_start(&text, &live.nonce) {
                let end = find_end(&text, &live.nonce);
                let upto = match &end {
                    Some((_, _, at)) => *at,
                    None => text[begin..].rfind('\n').map_or(begin, |i| begin + i + 1),
                };
                if upto > begin + delivered {
                    on_output(text[begin + delivered..upto].to_owned()).await;
                    delivered = upto - begin;
                }
                if let Some((status, cwd, at)) = end {
                    shell.lock().cwd = Some(PathBuf::from(cwd));
                    let _ = std::fs::remove_file(&file);
                    let (output, truncated) = bounded(&text[begin..at], run.max_output);
                    return Ok(RunResult {
                        exit_code: Some(status),
                        output,
                        timed_out: false,
                        cancelled: false,
                        truncated,
                        warning: None,
                    });
                }
            }
            if !live.session.running() {
                let exit = live.session.wait_exit().await;
                let taken = text
                    .get(find_start(&text, &live.nonce).unwrap_or(text.len())..)
                    .unwrap_or("");
                let (output, truncated) = bounded(taken, run.max_output);
                shell.lock().live = None;
                return Ok(RunResult {
                    exit_code: exit.exit_code,
                    output,
                    timed_out: false,
                    cancelled: false,
                    truncated,
                    warning: Some(
                        "the shell exited during this command; the next run starts a new one"
                            .into(),
                    ),
                });
            }
            let wait = deadline.map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(tokio::time::Instant::now())
            });
            tokio::select! {
                s = live.session.wait_output(seq, wait) => seq = s,
                () = cancel.cancelled() => break false,
                () = self.abort.cancelled() => break false,
                Some(data) = recv(&mut self.input) => {
                    live.session.write(&data)?;
                }
            }
            if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
                break true;
            }
        };
        // Stopped: the whole job ends (see the module docs).
        let text = live
            .session
            .read(&ReadOptions {
                since: Some(start_seq),
                ..ReadOptions::default()
            })?
            .text;
        let taken = text
            .get(find_start(&text, &live.nonce).unwrap_or(text.len())..)
            .unwrap_or("");
        let (output, truncated) = bounded(taken, run.max_output);
        let _ = live.session.kill();
        live.session.wait_exit().await;
        shell.lock().live = None;
        Ok(RunResult {
            exit_code: None,
            output,
            timed_out: stop,
            cancelled: !stop,
            truncated,
            warning: Some(
                "the shell was ended to stop the command; the next run starts a new one".into(),
            ),
        })
    }
}

/// A fresh nonce: 32 hex digits from randomly keyed hashes of the time
/// (unpredictable enough for a marker that only has to be impossible to
/// print by accident).
fn new_nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0..2)
        .map(|_| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(now);
            format!("{:016x}", h.finish())
        })
        .collect()
}

async fn recv(input: &mut Option<mpsc::UnboundedReceiver<Vec<u8>>>) -> Option<Vec<u8>> {
    match input {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// `text` cut to `max` bytes, head and tail kept (at character bounds).
fn bounded(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_owned(), false);
    }
    let mut head = max / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (max - head);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    (format!("{}{}", &text[..head], &text[tail..]), true)
}

impl Drop for RunTicket {
    fn drop(&mut self) {
        let mut state = self.shell.lock();
        state.busy = false;
        state.abort = None;
        state.input = None;
        drop(state);
        self.shell.idle.send_replace(true);
    }
}

impl Shell {
    /// A shell that starts on the first run.
    pub fn new(options: ShellOptions) -> Self {
        Shell {
            options,
            state: Mutex::new(State {
                live: None,
                busy: false,
                abort: None,
                closed: false,
                input: None,
                cwd: None,
                runs: 0,
            }),
            idle: watch::channel(true).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves the shell for one run (`ERR_ALREADY_RUNNING` while another
    /// runs, `ERR_NOT_RUNNING` after [`Shell::close`]).
    pub fn begin(self: &Arc<Self>) -> Result<RunTicket> {
        let mut state = self.lock();
        if state.closed {
            return Err(Error::not_running(
                "the shell was closed; create a new Shell to run more commands",
            ));
        }
        if state.busy {
            return Err(Error::new(
                ErrorCode::AlreadyRunning,
                "a command is already running in this shell; await its result (or call abort()) before the next run()",
            ));
        }
        let abort = CancellationToken::new();
        state.busy = true;
        state.abort = Some(abort.clone());
        drop(state);
        self.idle.send_replace(false);
        Ok(RunTicket {
            shell: self.clone(),
            abort,
            input: None,
        })
    }

    /// The running shell, started (and answering) if it was not.
    async fn live(&self) -> Result<Arc<Live>> {
        if let Some(live) = self.lock().live.clone()
            && live.session.running()
        {
            return Ok(live);
        }
        let program = self
            .options
            .shell
            .clone()
            .unwrap_or_else(|| "cmd.exe".into());
        let kind = WindowsShell::detect(&program).unwrap_or(WindowsShell::Cmd);
        let nonce = new_nonce();
        let dir = std::env::temp_dir().join(format!("ptypilot-shell-{}", &nonce[..12]));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("create the shell's folder", &e))?;
        let mut env = self.options.env.clone();
        env.extend(self.options.session_env.iter().cloned());
        let cwd = self.lock().cwd.clone().or_else(|| self.options.cwd.clone());
        let session = Session::spawn(SpawnOptions {
            command: program,
            args: kind.args(),
            cwd,
            env,
            base_env: self.options.base_env.clone(),
            cols: self.options.cols,
            rows: self.options.rows,
            sandbox: self.options.sandbox.clone(),
            ..SpawnOptions::default()
        });
        let session = match session {
            Ok(session) => session,
            Err(err) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(err);
            }
        };
        let live = Arc::new(Live {
            session,
            kind,
            nonce,
            dir,
        });
        // Ready once it prints what a typed line asks for.
        let ready = match kind {
            WindowsShell::Cmd => format!("echo __pp^_{}^_R\r", live.nonce),
            WindowsShell::PowerShell => format!("Write-Host ('__pp'+'_{}_R')\r", live.nonce),
        };
        let start = live.session.seq();
        live.session.write(ready.as_bytes())?;
        let tag = format!("__pp_{}_R", live.nonce);
        let until = tokio::time::Instant::now() + STARTUP_LIMIT;
        let mut seq = start;
        loop {
            let text = live
                .session
                .read(&ReadOptions {
                    since: Some(start),
                    ..ReadOptions::default()
                })?
                .text;
            if text.contains(&tag) {
                break;
            }
            let now = tokio::time::Instant::now();
            if now >= until || !live.session.running() {
                return Err(Error::new(
                    ErrorCode::Spawn,
                    format!(
                        "the shell did not answer within {} s (output: {:?})",
                        STARTUP_LIMIT.as_secs(),
                        text.chars().take(300).collect::<String>()
                    ),
                ));
            }
            seq = live.session.wait_output(seq, until - now).await;
        }
        self.lock().live = Some(live.clone());
        Ok(live)
    }

    /// The shell's process id while it runs.
    pub fn pid(&self) -> Option<Pid> {
        let state = self.lock();
        let live = state.live.as_ref()?;
        live.session.running().then(|| live.session.pid())
    }

    /// True while a run is in progress.
    pub fn busy(&self) -> bool {
        self.lock().busy
    }

    /// Sends `data` to the running command (run with [`Stdin::Terminal`]).
    pub fn write(&self, data: &[u8]) -> Result<()> {
        let state = self.lock();
        let sent = state
            .input
            .as_ref()
            .is_some_and(|input| input.send(data.to_vec()).is_ok());
        if sent {
            return Ok(());
        }
        Err(Error::not_running(if state.busy {
            "the running command's stdin is nul; run it with stdin: 'terminal' to write to it"
        } else {
            "no command is running; write() sends input to a command run with stdin: 'terminal'"
        }))
    }

    /// Stops the running command and resolves once its run finished.
    pub async fn abort(&self) {
        let abort = self.lock().abort.clone();
        if let Some(abort) = abort {
            abort.cancel();
        }
        self.wait_idle().await;
    }

    /// Ends the shell and everything it started.
    pub async fn close(&self) {
        let (live, abort) = {
            let mut state = self.lock();
            state.closed = true;
            (state.live.take(), state.abort.clone())
        };
        if let Some(abort) = abort {
            abort.cancel();
        }
        if let Some(live) = live {
            let _ = live.session.kill();
            live.session.wait_exit().await;
        }
        self.wait_idle().await;
    }

    /// Ends the shell's job at once, on the calling thread (teardown).
    pub fn kill_now(&self) {
        let live = self.lock().live.clone();
        if let Some(live) = live {
            live.session.kill_now();
        }
    }

    async fn wait_idle(&self) {
        let mut rx = self.idle.subscribe();
        let _ = rx.wait_for(|idle| *idle).await;
    }
}
