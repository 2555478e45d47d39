//! Starting a program on Windows: on a pseudo console (ConPTY, made by
//! `core::pty::windows`) or with plain pipes, either way created suspended,
//! put in a Job Object of the session's own and only then resumed, so no
//! process it starts escapes the job; its output and input move through
//! the session's channels (see `sys/windows.rs`).
use std::ffi::OsString;
use std::os::windows::io::OwnedHandle;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};

use windows_sys::Win32::System::Threading::CREATE_SUSPENDED;

use super::super::event_loop::Output;
use super::super::output::Stream;
use super::super::sys::{self, Channel};
use super::super::{PipeOptions, SpawnOptions};
use super::Prepared;
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::fds::RawFd;
use crate::core::proc_tree::Pid;
use crate::core::pty::{Job, PseudoConsole, Suspended};

/// What the session thread owns: the channels, the job and the child
/// handle. Dropping it closes them (and the pseudo console).
pub(in crate::core::session) enum Io {
    /// A pseudo console: its output pipe read into `output`, `input`
    /// written to its input pipe.
    Pty {
        output: Channel,
        input: Channel,
        job: Job,
        /// The process handle, kept as long as the session.
        _process: OwnedHandle,
    },
    /// Plain pipes.
    Pipes {
        stdout: Channel,
        stderr: Channel,
        stdin: Option<Channel>,
        job: Job,
        _child: std::process::Child,
    },
}

impl Io {
    /// The outputs to read, the input channel and the terminal's channel.
    pub(in crate::core::session) fn descriptors(
        &self,
    ) -> (Vec<Output>, Option<RawFd>, Option<RawFd>) {
        let output = |fd: RawFd, stream| Output {
            fd,
            stream,
            eof: false,
        };
        match self {
            Io::Pty {
                output: out, input, ..
            } => (
                vec![output(out.fd(), Stream::Terminal)],
                Some(input.fd()),
                Some(out.fd()),
            ),
            Io::Pipes {
                stdout,
                stderr,
                stdin,
                ..
            } => (
                vec![
                    output(stdout.fd(), Stream::Stdout),
                    output(stderr.fd(), Stream::Stderr),
                ],
                stdin.as_ref().map(Channel::fd),
                None,
            ),
        }
    }

    /// Types Ctrl+C into a pseudo console (ConPTY sends `CTRL_C_EVENT` to
    /// the processes attached to it); false for pipes, which have no console
    /// to type into.
    pub(in crate::core::session) fn type_interrupt(&self) -> bool {
        match self {
            Io::Pty { input, .. } => sys::write_some(input.fd(), b"\x03") == 1,
            Io::Pipes { .. } => false,
        }
    }

    /// Ends every process of the session's job (exit code 1).
    pub(in crate::core::session) fn terminate_job(&self) -> bool {
        match self {
            Io::Pty { job, .. } | Io::Pipes { job, .. } => job.terminate(1),
        }
    }

    /// Closes the pseudo console once the program exited, so its output
    /// reaches its end when drained; true when it was open until now.
    pub(in crate::core::session) fn close_console(&self) -> bool {
        match self {
            Io::Pty { output, .. } => sys::close_console(output.fd()),
            Io::Pipes { .. } => false,
        }
    }
}

fn job_for(suspended: Suspended) -> Result<(Job, OwnedHandle)> {
    let job = Job::new().map_err(|e| Error::io("CreateJobObject", &e))?;
    let process = suspended
        .resume_in(&job)
        .map_err(|e| Error::io("assign the program to its job and resume it", &e))?;
    Ok((job, process))
}

/// Opens a pseudo console of the session's size with its flags
/// (`opts.conpty`) and starts the program on it. `input_flags` (termios)
/// and `run_as` have no meaning here: the first is ignored, the second
/// refused before this is called.
pub(in crate::core::session) fn spawn_pty(
    opts: &SpawnOptions,
    prepared: &Prepared,
) -> Result<(Io, Pid)> {
    let opened = PseudoConsole::open(opts.cols, opts.rows, opts.conpty).map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("cannot open a pseudo console: {e}"),
        )
    })?;
    let program = crate::core::pty::Program {
        program: &prepared.program,
        argv: &prepared.argv,
        env: &prepared.env,
        cwd: &prepared.cwd,
    };
    let suspended = crate::core::pty::start_on_console(&opened.console, &program)
        .map_err(|e| Error::spawn("spawn", prepared.program.display().to_string(), &e))?;
    let pid = suspended.pid() as Pid;
    let (job, process) = job_for(suspended)?;
    let start = |e: std::io::Error| Error::io("start a pseudo console thread", &e);
    let output =
        Channel::reader(Box::new(opened.output), format!("ptypilot-out-{pid}")).map_err(start)?;
    let input =
        Channel::writer(Box::new(opened.input), format!("ptypilot-in-{pid}")).map_err(start)?;
    sys::keep_console(output.fd(), opened.console);
    Ok((
        Io::Pty {
            output,
            input,
            job,
            _process: process,
        },
        pid,
    ))
}

/// Starts the program with plain pipes, suspended, then in a job of its own.
pub(in crate::core::session) fn spawn_pipes(
    prepared: &Prepared,
    pipes: PipeOptions,
) -> Result<(Io, Pid)> {
    use std::process::Stdio;
    let mut cmd = std::process::Command::new(&prepared.program);
    cmd.args(&prepared.argv[1..])
        .env_clear()
        .envs(prepared.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&prepared.cwd)
        .creation_flags(CREATE_SUSPENDED)
        .stdin(if pipes.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::spawn("spawn", prepared.program.display().to_string(), &e))?;
    let suspended = Suspended::from_std(&child).map_err(|e| Error::io("DuplicateHandle", &e));
    let (job, _process) = match suspended.and_then(job_for) {
        Ok(started) => started,
        Err(err) => {
            let _ = child.kill();
            return Err(err);
        }
    };
    let pid = child.id() as Pid;
    let start = |e: std::io::Error| Error::io("start a pipe thread", &e);
    let stdout = Channel::reader(
        Box::new(child.stdout.take().expect("piped stdout")),
        format!("ptypilot-stdout-{pid}"),
    )
    .map_err(start)?;
    let stderr = Channel::reader(
        Box::new(child.stderr.take().expect("piped stderr")),
        format!("ptypilot-stderr-{pid}"),
    )
    .map_err(start)?;
    let stdin = match child.stdin.take() {
        Some(stdin) => {
            Some(Channel::writer(Box::new(stdin), format!("ptypilot-stdin-{pid}")).map_err(start)?)
        }
        None => None,
    };
    Ok((
        Io::Pipes {
            stdout,
            stderr,
            stdin,
            job,
            _child: child,
        },
        pid,
    ))
}

/// `ERROR_FILE_NOT_FOUND`.
const NOT_FOUND: i32 = 2;

/// Finds the program as `CreateProcess` callers do: a name with a path
/// separator relative to `cwd`, otherwise in each `PATH` directory (`;`
/// separated); a name without an extension is tried with each of
/// `PATHEXT`'s (`.COM;.EXE;.BAT;.CMD` when unset).
pub fn resolve_program(program: &str, path_env: Option<&str>, cwd: &Path) -> Result<PathBuf> {
    let exts: Vec<String> = if Path::new(program).extension().is_some() {
        vec![String::new()]
    } else {
        let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
        std::iter::once(String::new())
            .chain(
                pathext
                    .split(';')
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned),
            )
            .collect()
    };
    let find = |base: PathBuf| -> Option<PathBuf> {
        exts.iter().find_map(|ext| {
            let mut name = OsString::from(base.as_os_str());
            name.push(ext);
            let candidate = PathBuf::from(name);
            candidate.is_file().then_some(candidate)
        })
    };
    if program.contains(['/', '\\']) {
        return find(cwd.join(program)).ok_or_else(|| {
            Error::spawn(
                "spawn",
                program,
                &std::io::Error::from_raw_os_error(NOT_FOUND),
            )
        });
    }
    let system = std::env::var("SystemRoot").map(|r| format!("{r}\\System32"));
    let dirs = path_env
        .map(str::to_owned)
        .or_else(|| system.ok())
        .unwrap_or_default();
    for dir in dirs.split(';').filter(|d| !d.is_empty()) {
        if let Some(found) = find(cwd.join(dir).join(program)) {
            return Ok(found);
        }
    }
    Err(Error::spawn(
        "spawn",
        program,
        &std::io::Error::from_raw_os_error(NOT_FOUND),
    ))
}
