//! `Shell` binding: converts options, calls the core shell, maps errors.
//!
//! The JS class `Shell` (index.js) wraps this `NativeShell`. A run's output
//! reaches JS through a threadsafe function made for that run; each call is
//! awaited before more output is taken, so a slow listener slows the command
//! down (as a terminal would) instead of queueing without bound, and every
//! chunk has been delivered before the run's promise settles. The function is
//! weak: the pending promise already keeps the event loop alive during a run,
//! and an idle shell does not.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;

use crate::cancel::CancelToken;
use crate::core::shell::{self as core_shell, RunOptions, RunResult, Shell, ShellOptions};
use crate::core::{Error as CoreError, Result as CoreResult};
use crate::error::{IntoJs, js_error};
use crate::options::Opts;

/// How a command run in a shell ended.
///
/// `exitCode` is always there (a number or `null`); `warning` only when the
/// shell was replaced.
#[napi(object, object_from_js = false)]
pub struct ShellResult {
    /// The command's exit status; `null` when it was stopped (timeout, abort)
    /// or the shell was killed by a signal.
    pub exit_code: Either<i32, Null>,
    /// What the command printed: escape sequences stripped, `\n` line ends.
    pub output: String,
    /// `timeoutMs` ran out and the command was stopped.
    pub timed_out: bool,
    /// The `AbortSignal`, `abort()` or `close()` stopped the command.
    pub cancelled: bool,
    /// Output beyond `maxOutputBytes` was left out of `output` (head and tail kept).
    pub truncated: bool,
    /// Why the shell was replaced after this run (the command closed or
    /// moved its terminal descriptors, or its end marker was lost); absent
    /// otherwise.
    pub warning: Option<String>,
}

impl From<RunResult> for ShellResult {
    fn from(r: RunResult) -> Self {
        ShellResult {
            exit_code: r.exit_code.map_or(Either::B(Null), Either::A),
            output: r.output,
            timed_out: r.timed_out,
            cancelled: r.cancelled,
            truncated: r.truncated,
            warning: r.warning,
        }
    }
}

/// How the JS layer creates a shell (internal).
#[napi(object)]
pub struct ShellHow {
    /// The environment to inherit (a worker's `process.env`); default: this process's.
    pub base_env: Option<HashMap<String, String>>,
}

type OutputSink = ThreadsafeFunction<String, (), String, Status, false, true>;

/// The native half of `Shell`. Internal: use `Shell` from the package.
#[napi]
pub struct NativeShell {
    shell: Arc<Shell>,
}

#[napi]
impl NativeShell {
    /// A shell that starts on the first run. Throws `ERR_INVALID_ARG` for bad
    /// options.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, options: Option<Unknown>, how: Option<ShellHow>) -> Result<Self> {
        let options = shell_options(options, how).into_js(&env)?;
        let shell = Arc::new(Shell::new(options));
        crate::cleanup::track(&env, crate::cleanup::Owner::Shell(Arc::downgrade(&shell)));
        Ok(NativeShell { shell })
    }

    /// The shell's process id while it runs, else `null`.
    #[napi(getter, catch_unwind)]
    pub fn pid(&self) -> Option<i32> {
        self.shell.pid()
    }

    /// True while a run is in progress.
    #[napi(getter, catch_unwind)]
    pub fn busy(&self) -> bool {
        self.shell.busy()
    }

    /// Runs a command. Throws (synchronously) `ERR_INVALID_ARG`,
    /// `ERR_ALREADY_RUNNING` or `ERR_NOT_RUNNING`; the promise rejects with
    /// `ERR_SPAWN` when the shell cannot start or `cwd` is not a directory.
    #[napi(catch_unwind)]
    pub fn run<'e>(
        &self,
        env: &'e Env,
        options: Unknown,
        on_data: Option<Function<'_, String, ()>>,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, ShellResult>> {
        let run = run_options(options).into_js(env)?;
        let mut ticket = self.shell.begin().into_js(env)?;
        if run.stdin == core_shell::Stdin::Terminal {
            // `write()` may follow at once, before the run's future starts.
            ticket.open_input();
        }
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        let sink: Option<Arc<OutputSink>> = match on_data {
            Some(f) => Some(Arc::new(
                f.build_threadsafe_function::<String>()
                    .callee_handled::<false>()
                    .weak::<true>()
                    .build()?,
            )),
            None => None,
        };
        env.spawn_future_with_callback(
            async move {
                let on_output = move |chunk: String| {
                    let sink = sink.clone();
                    async move {
                        if let Some(sink) = sink {
                            // The JS layer catches listener errors; a failed
                            // call only means the environment is going away.
                            let _ = sink.call_async_catch(chunk).await;
                        }
                    }
                };
                Ok(ticket.run(run, cancel, on_output).await)
            },
            |env, result| result.map(ShellResult::from).map_err(|e| js_error(env, &e)),
        )
    }

    /// Sends input to the running command (run with `stdin: 'terminal'`).
    /// Throws `ERR_NOT_RUNNING` when no such command runs.
    #[napi(catch_unwind)]
    pub fn write(&self, env: Env, data: Either<String, Buffer>) -> Result<()> {
        let bytes: &[u8] = match &data {
            Either::A(text) => text.as_bytes(),
            Either::B(buffer) => buffer.as_ref(),
        };
        self.shell.write(bytes).into_js(&env)
    }

    /// Stops the running command; resolves when its run has finished (at
    /// once when nothing runs).
    #[napi(catch_unwind)]
    pub fn abort<'e>(&self, env: &'e Env) -> Result<PromiseRaw<'e, ()>> {
        let shell = self.shell.clone();
        env.spawn_future(async move {
            shell.abort().await;
            Ok(())
        })
    }

    /// Ends the shell and everything it started; resolves when they are gone.
    #[napi(catch_unwind)]
    pub fn close<'e>(&self, env: &'e Env) -> Result<PromiseRaw<'e, ()>> {
        let shell = self.shell.clone();
        env.spawn_future(async move {
            shell.close().await;
            Ok(())
        })
    }
}

fn shell_options(options: Option<Unknown>, how: Option<ShellHow>) -> CoreResult<ShellOptions> {
    let mut opts = Opts::new(options, "options")?;
    let shell = opts.string("shell")?;
    if let Some(name) = &shell
        && (name.is_empty() || name.contains('\0'))
    {
        return Err(CoreError::invalid_arg(format!(
            "options.shell must be a shell program such as 'bash', got {name:?}"
        )));
    }
    if let Some(name) = &shell {
        core_shell::check_shell_name(name)?;
    }
    let cwd = opts.path("cwd")?;
    let vars = opts.env("env")?.unwrap_or_default();
    let (cols, rows) = opts.size()?;
    let session_env = opts.string_map("sessionEnv")?.unwrap_or_default();
    let snapshot = opts.string("snapshotPath")?.map(PathBuf::from);
    let sandbox = opts.sandbox("sandbox")?;
    opts.finish()?;
    let options = ShellOptions {
        shell,
        cwd,
        env: vars,
        base_env: how
            .and_then(|h| h.base_env)
            .map(|m| m.into_iter().collect()),
        cols,
        rows,
        session_env,
        snapshot,
        sandbox,
    };
    options.check()?;
    Ok(options)
}

fn run_options(options: Unknown) -> CoreResult<RunOptions> {
    let mut opts = Opts::new(Some(options), "options")?;
    if opts.is_empty() {
        return Err(CoreError::invalid_arg(
            "run() needs options with a `command`",
        ));
    }
    let command = opts.string("command")?.ok_or_else(|| {
        CoreError::invalid_arg("options.command is required (the shell code to run)")
    })?;
    let cwd = opts.string("cwd")?;
    let env = opts.string_map("env")?.unwrap_or_default();
    let timeout = opts.millis("timeoutMs")?.map(Duration::from_millis);
    let max_output = opts
        .integer("maxOutputBytes", 0.0, 9.0e15)?
        .map_or(core_shell::DEFAULT_MAX_OUTPUT, |n| n as usize);
    let stdin = match opts.string("stdin")?.as_deref() {
        None | Some("null") => core_shell::Stdin::Null,
        Some("terminal") => core_shell::Stdin::Terminal,
        Some(other) => {
            return Err(CoreError::invalid_arg(format!(
                "options.stdin must be 'null' or 'terminal', got {other:?}"
            )));
        }
    };
    // Bridged to a CancelToken by the JS layer.
    opts.skip("signal");
    opts.finish()?;
    let run = RunOptions {
        command,
        cwd,
        env,
        timeout,
        max_output,
        stdin,
    };
    run.check()?;
    Ok(run)
}

/// What `applyBashFixups` returns.
#[napi(object, object_from_js = false)]
pub struct BashFixup {
    /// The command without the trailing caps (the input itself when none).
    pub command: String,
    /// Whether anything was removed.
    pub stripped: bool,
}

/// Strips trailing `| head …` / `| tail …` caps and a redundant trailing
/// `2>&1` from a command; runs nothing.
#[napi(js_name = "applyBashFixups", catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn apply_bash_fixups(command: String) -> BashFixup {
    let fixed = core_shell::apply_bash_fixups(&command);
    BashFixup {
        command: fixed.command,
        stripped: fixed.stripped,
    }
}
