//! Driving one shell: starting it and waiting for its first marker prompt,
//! then running one command — the run line written, output streamed through
//! the [`Tracker`] until the command ends, stops carried out.

use std::fs;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use nix::sys::signal::Signal;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::health::{self, Expected, Unfit};
use super::kind::{ShellKind, fish_init, session_env_script};
use super::script::{
    CommandDir, RunLine, Stdin, drain_end_pipe, file_prefix, new_nonce, probe_line, run_line,
    send_secret, write_fifo,
};
use super::stop::{Interrupt, Stop, end_shell, session_members, sleep_until};
use super::tracker::{Phase, Probe, Tracker};
use super::watchdog::{Action, Watchdog};
use super::{
    PROBE_LIMIT, PROMPT_GRACE, RunOptions, RunResult, RunTicket, STARTUP_LIMIT, Shell, StopReason,
};
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::fds::{self, FdTarget};
use crate::core::input_state::{self, Reading};
use crate::core::proc_tree::{self, Pid, ProcRef};
use crate::core::session::{self, Exit, Session, SpawnOptions};
use crate::core::time;

/// A started shell.
pub(super) struct Live {
    pub(super) session: Session,
    /// The shell's name as it calls itself (`bash`, `zsh`, `dash`, `sh`).
    pub(super) name: String,
    pub(super) nonce: String,
    /// The shell's dialect.
    pub(super) kind: ShellKind,
    /// The end pipe (a FIFO, see [`CommandDir::fifo`]): its path and our
    /// descriptor.
    pub(super) end_pipe: (PathBuf, std::os::fd::OwnedFd),
    /// The control FIFO the shell reads its command lines from (its
    /// standard input); `None` for fish, which reads the terminal.
    pub(super) ctl: Option<(PathBuf, std::os::fd::OwnedFd)>,
    /// The terminal's device path.
    pub(super) tty: PathBuf,
    /// What the shell's descriptors 0, 1 and 2 must refer to.
    pub(super) expected: Expected,
    /// The terminal's modes once the shell was ready (see `health`).
    pub(super) modes: Mutex<Option<libc::termios>>,
    pub(super) tracker: Mutex<Tracker>,
    pub(super) dir: CommandDir,
    pub(super) runs: std::sync::atomic::AtomicU64,
    /// Notices when the markers stop appearing.
    pub(super) watchdog: Mutex<Watchdog>,
}

impl Live {
    pub(super) fn tracker(&self) -> MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn watchdog(&self) -> MutexGuard<'_, Watchdog> {
        self.watchdog.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the shell a line to read: through its control FIFO, or (fish)
    /// typed into the terminal, which the caller does only while fish waits
    /// at its prompt.
    fn send(&self, line: &str) {
        match &self.ctl {
            Some((_, fd)) => write_fifo(fd, line.as_bytes()),
            // If the shell just died, the exit shows up in the outbox.
            None => {
                let _ = self.session.write(line.as_bytes());
            }
        }
    }

    /// Who reads the terminal while fish shows its prompt (Linux: the
    /// kernel's answer, module `reading`; where the kernel will not say,
    /// fish is taken to).
    fn prompt_reader(&self) -> PromptReader {
        let shell = self.session.pid();
        if self.session.foreground_group() != Some(shell) {
            return PromptReader::Other;
        }
        let FdTarget::Device { rdev } = self.expected.terminal else {
            return PromptReader::Shell;
        };
        match input_state::foreground_reader(shell, shell, rdev) {
            Reading::Blocked { member, .. } if member.pid == shell => PromptReader::Shell,
            Reading::Blocked { .. } => PromptReader::Other,
            Reading::NotBlocked { .. } => PromptReader::NotYet,
            Reading::Unknown { .. } => PromptReader::Shell,
        }
    }

    /// Why the shell cannot run another command (see `health`), after a
    /// command ended; puts the terminal's modes back as they were when the
    /// shell was ready.
    fn check_health(&self) -> Option<Unfit> {
        if let Some(unfit) = health::check_descriptors(self.session.pid(), &self.expected) {
            return Some(unfit);
        }
        if !self.kind.reads_terminal() {
            let base = *self.modes.lock().unwrap_or_else(|e| e.into_inner());
            if let (Some(base), Some(now)) = (base, self.session.terminal_modes())
                && !health::same_modes(&base, &now)
            {
                self.session.set_terminal_modes(&base);
            }
        }
        None
    }

    /// The shell sits in the terminal's foreground, asleep: no job of its
    /// own runs, and it waits (for input, unless a builtin such as `wait`
    /// waits for something else).
    fn idle_in_foreground(&self) -> bool {
        let shell = self.session.pid();
        self.session.foreground_group() == Some(shell)
            && proc_tree::info(shell).is_some_and(|p| p.state == 'S')
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // Nobody can use this shell any more: leave nothing behind.
        if self.session.running() {
            let _ = self.session.kill();
        }
    }
}

/// Who reads the terminal while fish shows its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PromptReader {
    /// fish itself (or the kernel would not say).
    Shell,
    /// Nobody yet (fish is still drawing its prompt).
    NotYet,
    /// Another process, or fish is not in the terminal's foreground.
    Other,
}

/// How often fish is looked at until it reads the terminal at its prompt.
const READER_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// The warning of a run whose fish had another process reading its terminal.
const OTHER_READER: &str = "a process other than the shell read the terminal at the shell's prompt; a new shell ran this command";

/// What running in one shell came to.
pub(super) enum Executed {
    Done(RunResult),
    /// The shell exited (or was replaced, and why) before the command was
    /// written to it.
    ShellGone(Option<String>),
}

/// The warning of a run whose end markers were lost.
const LOST: &str = "the shell no longer printed its end marker (a command redefined printf, command or builtin); a new shell runs the next command";
/// The warning of a run whose shell stopped showing its prompt.
const NO_PROMPT: &str = "the shell stopped showing its prompt; a new shell ran this command";
impl Shell {
    /// The started shell, if it still runs.
    pub(super) fn current(&self) -> Option<Arc<Live>> {
        let state = self.lock();
        state.live.clone().filter(|l| l.session.running())
    }

    /// Drops `live` as the current shell (it exited or was killed).
    pub(super) fn forget(&self, live: &Arc<Live>) {
        let mut state = self.lock();
        if state.live.as_ref().is_some_and(|l| Arc::ptr_eq(l, live)) {
            state.live = None;
        }
    }

    /// Forgets a shell that exited, and hangs up on what it left running in
    /// its terminal session (as a closing terminal would); whatever survives
    /// that is killed by [`Shell::close`].
    pub(super) fn bury(&self, live: &Arc<Live>) {
        self.forget(live);
        let strays = session_members(live.session.pid());
        for p in &strays {
            p.signal(Signal::SIGHUP);
            p.signal(Signal::SIGCONT);
        }
        let mut state = self.lock();
        state.orphans.retain(ProcRef::alive);
        state.orphans.extend(strays);
    }

    /// Replaces `live` (broken, see `health`): the next shell starts in its
    /// directory, where the system tells it (Linux `/proc/<pid>/cwd`); the
    /// snapshot and the session variables come back as in every new shell.
    pub(super) async fn replace(&self, live: &Arc<Live>) {
        if let Ok(cwd) = fs::read_link(format!("/proc/{}/cwd", live.session.pid())) {
            self.lock().carry_cwd = Some(cwd);
        }
        self.forget(live);
        end_shell(&live.session).await;
    }

    /// The PATH the shell will see.
    pub(super) fn path_env(&self) -> Option<String> {
        if let Some((_, value)) = self.options.env.iter().rev().find(|(k, _)| k == "PATH") {
            return value.clone();
        }
        match &self.options.base_env {
            Some(base) => base
                .iter()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone()),
            None => std::env::var("PATH").ok(),
        }
    }

    /// Starts a shell and waits for its first marker prompt. `Ok(None)` when
    /// the run was stopped meanwhile (the shell is then gone again).
    async fn start(&self, stop: &mut Stop) -> Result<Option<Arc<Live>>> {
        let path_env = self.path_env();
        let here = std::env::current_dir().map_err(|e| Error::spawn("chdir", ".", &e))?;
        let program = match &self.options.shell {
            Some(shell) => shell.clone(),
            None if session::resolve_program("bash", path_env.as_deref(), &here).is_ok() => {
                "bash".to_owned()
            }
            None => "sh".to_owned(),
        };
        let resolved = session::resolve_program(&program, path_env.as_deref(), &here)?;
        let kind = ShellKind::detect(&resolved);
        let snapshot = match &self.options.snapshot {
            Some(path) => Some(readable_file(&here.join(path))?),
            None => None,
        };
        let nonce = new_nonce();
        let dir = CommandDir::create()?;
        let end_pipe = dir.fifo("end")?;
        let ctl = if kind.reads_terminal() {
            None
        } else {
            Some(dir.fifo("ctl")?)
        };
        let env_file = if self.options.session_env.is_empty() {
            None
        } else {
            Some(dir.write_file(
                "session-env",
                &session_env_script(&self.options.session_env, kind),
            )?)
        };
        let init = match kind {
            ShellKind::Fish => Some(dir.write_file(
                "init.fish",
                &fish_init(
                    &nonce,
                    &end_pipe.0,
                    snapshot.as_deref(),
                    env_file.as_deref(),
                ),
            )?),
            _ => None,
        };
        // The launcher looks the shell up on the same PATH; a path is
        // passed resolved (a relative one would be taken from the shell's
        // directory).
        let as_given = if program.contains('/') {
            resolved.to_string_lossy().into_owned()
        } else {
            program.clone()
        };
        let (launcher, args) = kind.launch(
            &as_given,
            ctl.as_ref().map(|(path, _)| path.as_path()),
            init.as_deref(),
        );
        let cwd = self
            .lock()
            .carry_cwd
            .take()
            .or_else(|| self.options.cwd.clone());
        // Pagers would wait for keys nobody can send; the caller's env wins.
        let mut env: Vec<(String, Option<String>)> = vec![
            ("PAGER".into(), Some("cat".into())),
            ("GIT_PAGER".into(), Some("cat".into())),
        ];
        env.extend(self.options.env.iter().cloned());
        for name in ["ENV", "BASH_ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2"] {
            env.push((name.into(), None));
        }
        let mut sandbox = self.options.sandbox.clone();
        if sandbox.is_on() {
            sandbox.control.push(dir.path.clone());
            sandbox.workspace = Some(here.join(self.options.cwd.as_deref().unwrap_or(&here)));
        }
        let session = Session::spawn(SpawnOptions {
            command: launcher,
            args,
            cwd,
            env,
            sandbox,
            base_env: self.options.base_env.clone(),
            cols: self.options.cols,
            rows: self.options.rows,
            // Nothing reads the transcript or scrollback of this session: the
            // tracker takes all output from the outbox.
            scrollback: 0,
            transcript_limit: 64 << 10,
            ..SpawnOptions::default()
        })?;
        if let Some((_, fd)) = &ctl {
            // The FIFO keeps these lines until the shell reads them.
            write_fifo(
                fd,
                kind.init_lines(&nonce, snapshot.as_deref(), env_file.as_deref())
                    .as_bytes(),
            );
        }
        let name = Path::new(&program)
            .file_name()
            .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
        let tty = session
            .tty_path()
            .unwrap_or_else(|| PathBuf::from("/dev/tty"));
        let terminal = fds::of_path(&tty);
        let expected = match &ctl {
            Some((_, fd)) => Expected {
                stdin: fds::own(std::os::fd::AsFd::as_fd(fd)),
                stdin_name: "its control FIFO",
                terminal,
            },
            None => Expected {
                stdin: terminal.clone(),
                stdin_name: "its terminal",
                terminal,
            },
        };
        let live = Arc::new(Live {
            session,
            name,
            tracker: Mutex::new(Tracker::new(&nonce)),
            nonce,
            kind,
            end_pipe,
            ctl,
            tty,
            expected,
            modes: Mutex::new(None),
            dir,
            runs: std::sync::atomic::AtomicU64::new(0),
            watchdog: Mutex::new(Watchdog::new(!kind.reads_terminal())),
        });
        let closed = {
            let mut state = self.lock();
            if !state.closed {
                state.live = Some(live.clone());
            }
            state.closed
        };
        if closed {
            end_shell(&live.session).await;
            return Ok(None);
        }
        let mut rx = live.session.subscribe();
        let limit = Instant::now() + STARTUP_LIMIT;
        loop {
            rx.borrow_and_update();
            let out = live.session.take_outbox();
            let ready = {
                let mut tracker = live.tracker();
                if !out.data.is_empty() {
                    tracker.feed(&out.data);
                }
                tracker.phase() == Phase::Idle
            };
            if ready {
                *live.modes.lock().unwrap_or_else(|e| e.into_inner()) =
                    live.session.terminal_modes();
                return Ok(Some(live));
            }
            if let Some(exit) = out.exit {
                self.bury(&live);
                if stop.poll().is_some() {
                    // `close()` ended it.
                    return Ok(None);
                }
                let said = live.tracker().discarded();
                return Err(Error {
                    code: ErrorCode::Spawn,
                    message: format!(
                        "the shell {program} exited while starting ({}){}",
                        describe_exit(&exit),
                        said_suffix(&said)
                    ),
                    errno: None,
                    path: Some(program),
                });
            }
            tokio::select! {
                _ = rx.changed() => {}
                reason = stop.wait() => {
                    stop.reason = Some(reason);
                    self.forget(&live);
                    end_shell(&live.session).await;
                    return Ok(None);
                }
                _ = tokio::time::sleep_until(limit) => {
                    self.forget(&live);
                    end_shell(&live.session).await;
                    let said = live.tracker().discarded();
                    return Err(Error {
                        code: ErrorCode::Spawn,
                        message: format!(
                            "the shell {program} did not show its prompt within {} s; is it a POSIX shell?{}",
                            STARTUP_LIMIT.as_secs(),
                            said_suffix(&said)
                        ),
                        errno: None,
                        path: Some(program),
                    });
                }
            }
        }
    }

    /// Runs the command in `live`: waits for the prompt, writes the run line,
    /// streams output until the command ends, and stops it when asked.
    /// Writes a probe line with a fresh random number (unguessable, so a
    /// command cannot print its answer in advance).
    fn send_probe(&self, live: &Arc<Live>) {
        let id = u64::from_str_radix(&new_nonce()[..15], 16).unwrap_or(1);
        live.tracker().probe_sent(id);
        live.send(&probe_line(id, &live.nonce, live.kind));
    }

    /// Waits until the shell is back at its prompt with no probe line of
    /// ours in it, its output dropped: a command has ended and its output
    /// was taken. As long as the watchdog would wait: [`PROBE_LIMIT`] for
    /// the answer to a probe, [`PROMPT_GRACE`] for a prompt (after the
    /// command, or after the answer).
    async fn settle(&self, live: &Arc<Live>, rx: &mut tokio::sync::watch::Receiver<u64>) {
        let start = Instant::now();
        let mut answered: Option<Instant> = None;
        loop {
            rx.borrow_and_update();
            let out = live.session.take_outbox();
            let (phase, probe) = {
                let mut tracker = live.tracker();
                if !out.data.is_empty() {
                    tracker.feed(&out.data);
                }
                (tracker.phase(), tracker.probe())
            };
            if (phase == Phase::Idle && probe == Probe::Settled) || out.exit.is_some() {
                return;
            }
            let limit = match probe {
                Probe::Sent(_) => start + PROBE_LIMIT,
                Probe::Answered { .. } => *answered.get_or_insert_with(Instant::now) + PROMPT_GRACE,
                Probe::Settled => answered.unwrap_or(start) + PROMPT_GRACE,
            };
            tokio::select! {
                _ = rx.changed() => {}
                _ = tokio::time::sleep_until(limit) => return,
            }
        }
    }

    async fn execute<F, Fut>(
        &self,
        live: &Arc<Live>,
        opts: &RunOptions,
        stop: &mut Stop,
        input: &mut Option<mpsc::UnboundedReceiver<Vec<u8>>>,
        on_output: &mut F,
    ) -> Result<Executed>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = ()>,
    {
        let mut rx = live.session.subscribe();
        let mut file: Option<PathBuf> = None;
        let mut interrupt: Option<Interrupt> = None;
        // A stop's next step is due: taken once the output so far was read.
        let mut step_due = false;
        // fish: when its prompt came, and when to look again whether it
        // reads the terminal (see `Live::prompt_reader`).
        let mut prompt_since: Option<Instant> = None;
        let mut recheck_at: Option<Instant> = None;
        let cleanup = |file: &Option<PathBuf>| {
            if let Some(file) = file {
                let _ = fs::remove_file(file);
            }
        };
        loop {
            rx.borrow_and_update();
            let out = live.session.take_outbox();
            let (text, phase, finish, probe, confirm, verify) = {
                let mut tracker = live.tracker();
                let text = if out.data.is_empty() {
                    String::new()
                } else {
                    tracker.feed(&out.data)
                };
                (
                    text,
                    tracker.phase(),
                    tracker.take_finish(),
                    tracker.probe(),
                    tracker.take_confirm(),
                    tracker.take_verify(),
                )
            };
            if verify && probe == Probe::Settled && !confirm && !live.kind.reads_terminal() {
                // A prompt came during the command: a probe line, which the
                // shell reads from its control FIFO only once it is back at
                // the prompt, tells whether it was the shell's. (fish reads
                // the terminal, where a probe could reach the command: a
                // prompt ends nothing there; `fish_postexec` always comes.)
                self.send_probe(live);
            }
            if confirm {
                // The shell waits for a secret line before it prints the end
                // marker. Input the command left unread in the terminal must
                // not reach the next command (nor, in fish, its prompt).
                live.session.discard_input();
                let secret = u128::from_str_radix(&new_nonce(), 16).unwrap_or_default();
                live.tracker().expect_secret(secret);
                send_secret(&live.end_pipe.1, secret);
            }
            if !text.is_empty() {
                on_output(text).await;
            }
            if let Some(finish) = finish.filter(|_| file.is_some()) {
                cleanup(&file);
                let (output, truncated) = live.tracker().take_output();
                live.watchdog().command_ended(Instant::now(), phase);
                // Its markers cannot be trusted any more, or the command
                // broke the shell: the next run gets a new one.
                let warning = if finish.lost {
                    Some(LOST.to_owned())
                } else {
                    if finish.aborted {
                        // The probe line that confirmed it is still running,
                        // its redirections applied: look once it is done.
                        self.settle(live, &mut rx).await;
                    }
                    match live.check_health() {
                        // A probe line written during the command may be
                        // running in the shell right now (a slow machine,
                        // a slow `DEBUG` trap): look again once it is over.
                        Some(unfit)
                            if unfit.may_pass() && live.tracker().probe() != Probe::Settled =>
                        {
                            self.settle(live, &mut rx).await;
                            live.check_health()
                        }
                        unfit => unfit,
                    }
                    .map(|unfit| unfit.why)
                };
                if warning.is_some() {
                    self.replace(live).await;
                }
                // A stop that was asked for wins, even if the command ended
                // before it was acted on (`close()` makes the command end
                // with SIGTERM, not with a stop of ours).
                let mut result = match stop.poll() {
                    Some(reason) => RunResult::stopped(reason, output, truncated),
                    None => RunResult {
                        exit_code: (!finish.lost).then_some(finish.status),
                        output,
                        timed_out: false,
                        cancelled: false,
                        truncated,
                        warning: None,
                    },
                };
                result.warning = warning;
                return Ok(Executed::Done(result));
            }
            if let Some(exit) = out.exit {
                self.bury(live);
                if file.is_none() {
                    return Ok(match stop.poll() {
                        Some(reason) => {
                            Executed::Done(RunResult::stopped(reason, String::new(), false))
                        }
                        None => Executed::ShellGone(None),
                    });
                }
                cleanup(&file);
                let tail = live.tracker().end_of_stream();
                if !tail.is_empty() {
                    on_output(tail).await;
                }
                let (output, truncated) = live.tracker().take_output();
                // `close()` kills the shell and cancels: say so even if the
                // exit came before the cancellation was seen.
                return Ok(Executed::Done(match stop.poll() {
                    Some(reason) => RunResult::stopped(reason, output, truncated),
                    None => RunResult {
                        exit_code: exit.exit_code,
                        output,
                        timed_out: false,
                        cancelled: false,
                        truncated,
                        warning: None,
                    },
                }));
            }
            if std::mem::take(&mut step_due)
                && let Some(interrupt) = &mut interrupt
            {
                // After the output that came meanwhile was read: the markers
                // tell whether the command still runs.
                let running = live.tracker().command_running();
                interrupt.advance(&live.session, running);
            }
            // Probe lines go through the control FIFO, which no command
            // reads: a command that waits for the terminal in the shell's
            // own process (`read x </dev/tty`) cannot get one.
            let watch = live
                .watchdog()
                .check(Instant::now(), phase, probe, file.is_some(), || {
                    live.idle_in_foreground()
                });
            let watch_at = match watch {
                Action::Wait(at) => at,
                Action::Probe(_) => {
                    self.send_probe(live);
                    continue;
                }
                Action::Replace => {
                    // Only while no command of ours is in it.
                    self.replace(live).await;
                    return Ok(Executed::ShellGone(Some(NO_PROMPT.to_owned())));
                }
            };
            if file.is_none() && live.tracker().broken() {
                // A probe showed that `printf` no longer prints markers.
                self.replace(live).await;
                return Ok(Executed::ShellGone(Some(LOST.to_owned())));
            }
            if file.is_none() && phase == Phase::Idle && probe == Probe::Settled {
                if let Some(reason) = stop.poll() {
                    return Ok(Executed::Done(RunResult::stopped(
                        reason,
                        String::new(),
                        false,
                    )));
                }
                // fish reads the run line from the terminal: typed only once
                // the kernel shows fish itself waiting there.
                let ready = if live.kind.reads_terminal() {
                    let now = Instant::now();
                    let since = *prompt_since.get_or_insert(now);
                    match live.prompt_reader() {
                        PromptReader::Shell => true,
                        PromptReader::NotYet => now >= since + PROMPT_GRACE,
                        PromptReader::Other if now < since + PROBE_LIMIT => false,
                        PromptReader::Other => {
                            self.replace(live).await;
                            return Ok(Executed::ShellGone(Some(OTHER_READER.to_owned())));
                        }
                    }
                } else {
                    true
                };
                if ready {
                    let cwd = match &opts.cwd {
                        Some(cwd) => Some(resolve_cwd(live.session.pid(), cwd)?),
                        None => None,
                    };
                    let n = live.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let prefix = file_prefix(live.kind, &live.dir.path);
                    let path = live.dir.write(n, &format!("{prefix}{}", opts.command))?;
                    let line = run_line(&RunLine {
                        file: &path,
                        nonce: &live.nonce,
                        cwd: cwd.as_deref(),
                        env: &opts.env,
                        kind: live.kind,
                        stdin: opts.stdin,
                        end_pipe: &live.end_pipe.0,
                        tty: &live.tty,
                        dir: &live.dir.path,
                    });
                    // Nothing unread from earlier runs may be taken for this one:
                    // not input in the terminal, not a secret in the end pipe.
                    live.session.discard_input();
                    drain_end_pipe(&live.end_pipe.1);
                    {
                        let mut tracker = live.tracker();
                        tracker.submit(opts.max_output);
                        tracker.name_file(&path.display().to_string(), &live.name);
                        tracker.file_prefix(prefix);
                    }
                    file = Some(path);
                    live.send(&line);
                    continue;
                }
                recheck_at = Some(Instant::now() + READER_POLL);
            }
            if let Some(interrupt) = &mut interrupt
                && phase != Phase::Submitted
            {
                interrupt.arm();
            }
            let next_step = interrupt.as_ref().and_then(|i| i.next_at);
            // Input goes to the terminal once the run line is written (the
            // command reads it when it starts), until the command is done;
            // for fish only once the command started, since fish reads the
            // run line from the terminal too, and might read input sent
            // behind it with it.
            let started = match live.kind.reads_terminal() {
                true => phase == Phase::Running,
                false => matches!(phase, Phase::Submitted | Phase::Running),
            };
            let accepting = file.is_some() && started && input.is_some();
            let recheck = recheck_at.take();
            tokio::select! {
                _ = rx.changed() => {}
                data = async { input.as_mut()?.recv().await }, if accepting => {
                    match data {
                        Some(data) => {
                            let _ = live.session.write(&data);
                        }
                        None => *input = None,
                    }
                }
                reason = stop.wait() => {
                    stop.reason = Some(reason);
                    if file.is_none() {
                        return Ok(Executed::Done(RunResult::stopped(reason, String::new(), false)));
                    }
                    interrupt = Some(Interrupt::new(phase != Phase::Submitted));
                    live.tracker().stopping();
                }
                _ = sleep_until(next_step), if next_step.is_some() => step_due = true,
                _ = sleep_until(watch_at), if watch_at.is_some() => {}
                _ = sleep_until(recheck), if recheck.is_some() => {}
            }
        }
    }
}

impl RunTicket {
    /// Runs `opts.command`, passing the command's output to `on_output` as it
    /// comes (stripped, as in the result; each call is awaited before more
    /// output is taken). `cancel` stops it like an `AbortSignal`.
    ///
    /// Resolves with the result when the command ended or was stopped; fails
    /// with `ERR_INVALID_ARG` for bad options, `ERR_SPAWN` when the shell
    /// cannot start or `cwd` is not a directory.
    pub async fn run<F, Fut>(
        mut self,
        opts: RunOptions,
        cancel: CancellationToken,
        mut on_output: F,
    ) -> Result<RunResult>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = ()>,
    {
        opts.check()?;
        let shell = self.shell.clone();
        let mut stop = Stop {
            cancel,
            abort: self.abort.clone(),
            deadline: opts.timeout.map(|t| time::later_tokio(Instant::now(), t)),
            reason: None,
        };
        if let Some(reason) = stop.poll() {
            return Ok(RunResult::stopped(reason, String::new(), false));
        }
        if opts.stdin == Stdin::Terminal {
            self.open_input();
        }
        let mut input = self.input.take();
        // A shell that died between runs is replaced once; one that dies
        // again before taking the command is an error.
        let mut warning = None;
        for _ in 0..2 {
            let live = match shell.current() {
                Some(live) => live,
                None => match shell.start(&mut stop).await? {
                    Some(live) => live,
                    None => {
                        let reason = stop.reason.unwrap_or(StopReason::Cancelled);
                        return Ok(RunResult::stopped(reason, String::new(), false));
                    }
                },
            };
            match shell
                .execute(&live, &opts, &mut stop, &mut input, &mut on_output)
                .await?
            {
                Executed::Done(mut result) => {
                    if result.warning.is_none() {
                        result.warning = warning;
                    }
                    return Ok(result);
                }
                Executed::ShellGone(why) => {
                    warning = why.or(warning);
                    continue;
                }
            }
        }
        Err(Error::new(
            ErrorCode::Spawn,
            "the shell exited before it could run the command",
        ))
    }
}

/// A run's `cwd` as an absolute, checked directory: relative to the shell's
/// current directory where the OS tells it (`/proc/<pid>/cwd`), else left to
/// the shell's `cd`.
pub(super) fn resolve_cwd(shell: Pid, cwd: &str) -> Result<String> {
    let path = Path::new(cwd);
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match fs::read_link(format!("/proc/{shell}/cwd")) {
            Ok(base) => base.join(path),
            Err(_) => return Ok(cwd.to_owned()),
        }
    };
    match fs::metadata(&full) {
        Ok(meta) if meta.is_dir() => Ok(full.to_string_lossy().into_owned()),
        Ok(_) => Err(Error::spawn(
            "chdir",
            full.display().to_string(),
            &std::io::Error::from_raw_os_error(libc::ENOTDIR),
        )),
        Err(e) => Err(Error::spawn("chdir", full.display().to_string(), &e)),
    }
}

/// `path` if it is a file this process can read (`ERR_SPAWN` with the
/// errno and path otherwise): the snapshot is checked before the shell
/// starts, since the shell's own complaint would be discarded with the
/// snapshot's output.
fn readable_file(path: &Path) -> Result<PathBuf> {
    let file =
        fs::File::open(path).map_err(|e| Error::spawn("open", path.display().to_string(), &e))?;
    match file.metadata() {
        Ok(meta) if meta.is_dir() => Err(Error::spawn(
            "open",
            path.display().to_string(),
            &std::io::Error::from_raw_os_error(libc::EISDIR),
        )),
        _ => Ok(path.to_path_buf()),
    }
}

pub(super) fn describe_exit(exit: &Exit) -> String {
    match (&exit.signal, exit.exit_code) {
        (Some(signal), _) => format!("signal {signal}"),
        (None, Some(code)) => format!("exit code {code}"),
        (None, None) => "unknown status".to_owned(),
    }
}

pub(super) fn said_suffix(said: &str) -> String {
    let said = said.trim();
    if said.is_empty() {
        String::new()
    } else {
        format!("; it printed: {said}")
    }
}
