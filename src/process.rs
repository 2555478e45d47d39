//! `Process` binding: a process found by pid or executable, to inspect, wait
//! for and terminate together with its tree. Converts arguments, calls
//! `core::proc_tree`, maps errors.
//!
//! The JS class `Process` (index.js) wraps this `NativeProcess`: it turns an
//! `AbortSignal` into a [`CancelToken`] and option objects into arguments,
//! and checks their types; values are checked here.

use std::path::Path;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::cancel::CancelToken;
use crate::core::proc_tree::{self, Pid, ProcRef, Terminate};
use crate::core::time;
use crate::core::{Error as CoreError, Result as CoreResult};
use crate::error::IntoJs;

/// One process, remembered by pid and start time: once it has exited, no
/// method reaches another process that reused the pid. Internal: use
/// `Process` from the package.
#[napi(js_name = "NativeProcess")]
pub struct Process {
    proc: ProcRef,
    /// The parent when we first saw the process, reported once it is gone.
    ppid: Pid,
}

#[napi]
impl Process {
    /// The process with this pid, or `null` when there is none. Throws
    /// `ERR_INVALID_ARG` for a pid that is not a positive integer.
    #[napi(catch_unwind)]
    pub fn from_pid(env: &Env, pid: f64) -> Result<Option<Process>> {
        let pid = pid_arg(pid).into_js(env)?;
        Ok(proc_tree::find(pid).map(|i| Process {
            proc: i.as_ref(),
            ppid: i.ppid,
        }))
    }

    /// Every process whose executable is `path` (symbolic links resolved).
    #[napi(catch_unwind)]
    pub fn from_path(env: &Env, path: String) -> Result<Vec<Process>> {
        if path.is_empty() || path.contains('\0') {
            return Err(CoreError::invalid_arg(format!(
                "path must be a file path, got {path:?}"
            )))
            .into_js(env);
        }
        Ok(proc_tree::by_executable(Path::new(&path))
            .into_iter()
            .filter_map(Process::from_ref)
            .collect())
    }

    /// The live processes an exited program left behind: the members of its
    /// session `sid` (0: none) and every process whose initial environment
    /// has `name=value` (see `core::proc_tree::left_behind`). The process table
    /// is read off the JS thread.
    #[napi(ts_return_type = "Promise<NativeProcess[]>", catch_unwind)]
    pub fn left_behind<'e>(
        env: &'e Env,
        sid: f64,
        name: String,
        value: String,
    ) -> Result<PromiseRaw<'e, Vec<Process>>> {
        let sid = if sid == 0.0 {
            0
        } else {
            pid_arg(sid).into_js(env)?
        };
        if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(CoreError::invalid_arg(format!(
                "the marker must be a variable name and a value, got {name:?}={value:?}"
            )))
            .into_js(env);
        }
        env.spawn_future_with_callback(
            async move {
                tokio::task::spawn_blocking(move || proc_tree::left_behind(sid, &name, &value))
                    .await
                    .map_err(|e| napi::Error::from_reason(format!("the process scan failed: {e}")))
            },
            |_env, found| Ok(found.into_iter().filter_map(Process::from_ref).collect()),
        )
    }

    /// Process id.
    #[napi(getter, catch_unwind)]
    pub fn pid(&self) -> i32 {
        self.proc.pid
    }

    /// Parent process id now (it changes when the parent dies first); the
    /// last one seen once the process is gone.
    #[napi(getter, catch_unwind)]
    pub fn ppid(&self) -> i32 {
        self.proc.info().map_or(self.ppid, |i| i.ppid)
    }

    /// The program's arguments (`argv`); empty once it has exited.
    #[napi(catch_unwind)]
    pub fn args(&self) -> Vec<String> {
        self.proc.args().unwrap_or_default()
    }

    /// Process group id, or `null` once it has exited.
    #[napi(catch_unwind)]
    pub fn group_id(&self) -> Option<i32> {
        self.proc.info().filter(|i| !i.exited()).map(|i| i.pgid)
    }

    /// Live direct children.
    #[napi(catch_unwind)]
    pub fn children(&self) -> Vec<Process> {
        self.proc
            .children()
            .into_iter()
            .filter_map(Process::from_ref)
            .collect()
    }

    /// `'running'`, or `'exited'` (a zombie has exited).
    #[napi(catch_unwind)]
    pub fn status(&self) -> &'static str {
        if self.proc.alive() {
            "running"
        } else {
            "exited"
        }
    }

    /// Signals the process and all its descendants, children first. Throws
    /// `ERR_INVALID_ARG` for an unknown signal.
    #[napi(catch_unwind)]
    pub fn kill_tree(&self, env: &Env, signal: Option<Either<String, f64>>) -> Result<()> {
        let signal = signal_arg(signal).into_js(env)?;
        proc_tree::kill_tree(&self.proc, signal);
        Ok(())
    }

    /// TERM (to the group too with `group`), `gracefulMs` (negative: none),
    /// KILL the tree, wait up to `timeoutMs`. Resolves `true` once every
    /// process of the tree has exited; rejects `ERR_ABORTED` when `token` is
    /// cancelled first.
    #[napi(ts_return_type = "Promise<boolean>", catch_unwind)]
    pub fn terminate<'e>(
        &self,
        env: &'e Env,
        group: Option<bool>,
        graceful_ms: Option<f64>,
        timeout_ms: Option<f64>,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, bool>> {
        let defaults = Terminate::default();
        let options = Terminate {
            group: group.unwrap_or(defaults.group),
            grace: match graceful_ms {
                None => defaults.grace,
                Some(ms) => grace_arg(ms).into_js(env)?,
            },
            timeout: timeout_ms
                .map(|ms| millis_arg("timeoutMs", ms))
                .transpose()
                .into_js(env)?
                .unwrap_or(defaults.timeout),
        };
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        let root = self.proc;
        env.spawn_future_with_callback(
            async move { Ok(proc_tree::terminate(root, &options, &cancel).await) },
            |env, result| result.into_js(env),
        )
    }

    /// Resolves `true` once the process has exited, `false` when
    /// `timeoutMs` ran out first (no limit without it); rejects
    /// `ERR_ABORTED` when `token` is cancelled first.
    #[napi(ts_return_type = "Promise<boolean>", catch_unwind)]
    pub fn wait_for_exit<'e>(
        &self,
        env: &'e Env,
        timeout_ms: Option<f64>,
        token: Option<&CancelToken>,
    ) -> Result<PromiseRaw<'e, bool>> {
        let timeout = timeout_ms
            .map(|ms| millis_arg("timeoutMs", ms))
            .transpose()
            .into_js(env)?;
        let cancel = token.map(CancelToken::token).unwrap_or_default();
        let target = self.proc;
        env.spawn_future_with_callback(
            async move { Ok(proc_tree::wait_exit(&[target], timeout, &cancel).await) },
            |env, result| result.into_js(env),
        )
    }
}

impl Process {
    /// A handle for a process found by the core (None if it is gone already).
    fn from_ref(proc: ProcRef) -> Option<Process> {
        proc.info().map(|i| Process { proc, ppid: i.ppid })
    }
}

fn pid_arg(pid: f64) -> CoreResult<Pid> {
    if pid.fract() == 0.0 && pid >= 1.0 && pid <= f64::from(i32::MAX) {
        Ok(pid as Pid)
    } else {
        Err(CoreError::invalid_arg(format!(
            "pid must be a positive integer, got {pid}"
        )))
    }
}

fn millis_arg(name: &str, ms: f64) -> CoreResult<Duration> {
    time::millis(&format!("options.{name}"), ms)
}

/// `gracefulMs`: a negative value skips the graceful phase.
fn grace_arg(ms: f64) -> CoreResult<Option<Duration>> {
    if !ms.is_finite() {
        return Err(CoreError::invalid_arg(format!(
            "options.gracefulMs must be a finite number of milliseconds (negative to skip the grace period), got {}",
            crate::core::error::js_number(ms)
        )));
    }
    if ms < 0.0 {
        return Ok(None);
    }
    time::millis("options.gracefulMs", ms).map(Some)
}

/// A signal by name or number; `SIGTERM` when absent.
fn signal_arg(signal: Option<Either<String, f64>>) -> CoreResult<crate::core::signal::Signal> {
    match signal {
        None => Ok(crate::core::signal::Signal::SIGTERM),
        Some(Either::A(name)) => proc_tree::parse_signal(&name),
        Some(Either::B(n)) if n.fract() == 0.0 && n.abs() <= f64::from(i32::MAX) => {
            proc_tree::signal_from_number(n as i32)
        }
        Some(Either::B(n)) => Err(CoreError::invalid_arg(format!("unknown signal number {n}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_with_the_value_in_the_message() {
        assert_eq!(pid_arg(42.0), Ok(42));
        for bad in [-3.0, 0.0, 1.5, f64::NAN, 1e12] {
            let err = pid_arg(bad).unwrap_err();
            assert_eq!(err.code.as_str(), "ERR_INVALID_ARG");
            assert_eq!(
                err.message,
                format!("pid must be a positive integer, got {bad}")
            );
        }
        assert_eq!(
            pid_arg(-3.0).unwrap_err().message,
            "pid must be a positive integer, got -3"
        );
        assert_eq!(
            millis_arg("timeoutMs", 250.0),
            Ok(Duration::from_millis(250))
        );
        assert!(
            millis_arg("timeoutMs", -1.0)
                .unwrap_err()
                .message
                .contains("timeoutMs")
        );
        assert!(millis_arg("timeoutMs", f64::INFINITY).is_err());
        assert_eq!(grace_arg(-1.0), Ok(None));
        assert_eq!(grace_arg(0.0), Ok(Some(Duration::ZERO)));
        assert!(grace_arg(f64::NAN).is_err());
        use crate::core::signal::Signal;
        assert_eq!(signal_arg(None), Ok(Signal::SIGTERM));
        assert_eq!(signal_arg(Some(Either::B(9.0))), Ok(Signal::SIGKILL));
        assert_eq!(
            signal_arg(Some(Either::A("int".into()))),
            Ok(Signal::SIGINT)
        );
        assert!(
            signal_arg(Some(Either::B(2.5)))
                .unwrap_err()
                .message
                .contains("2.5")
        );
        assert!(
            signal_arg(Some(Either::A("SIGFOO".into())))
                .unwrap_err()
                .message
                .contains("SIGFOO")
        );
    }
}
