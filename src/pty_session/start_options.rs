//! What `PtySession.start()` reads: its options (`PtyOptions`) checked and
//! turned into the core's spawn options, and how the JS layer wants the
//! session started (`StartHow`).

use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::screen;
use crate::core::session::SpawnOptions;
use crate::core::{Error as CoreError, Result as CoreResult};
use crate::options::Opts;

/// Reads PtyOptions into core spawn options. `extra` lists keys the caller
/// reads itself.
pub fn spawn_options(
    opts: &mut Opts,
    base_env: Option<Vec<(String, String)>>,
) -> CoreResult<SpawnOptions> {
    let command = opts.string("command")?.ok_or_else(|| {
        CoreError::invalid_arg("options.command is required (the program to run)")
    })?;
    let args = opts.strings("args")?.unwrap_or_default();
    let env = opts.env("env")?.unwrap_or_default();
    let inherit_env = opts.bool("inheritEnv")?.unwrap_or(true);
    let shell = match opts.bool_or_string("shell")? {
        None | Some(Either::A(false)) => None,
        Some(Either::A(true)) => Some(default_shell(&base_env, &env)),
        Some(Either::B(name)) if name.is_empty() => {
            return Err(CoreError::invalid_arg(
                "options.shell must be true, false or a shell name, got string \"\"",
            ));
        }
        Some(Either::B(name)) => Some(name),
    };
    let cwd = opts.path("cwd")?;
    let (cols, rows) = opts.size()?;
    let term = opts.string("term")?;
    if let Some(term) = &term
        && (term.is_empty() || term.contains(['\0', '=']))
    {
        return Err(CoreError::invalid_arg(format!(
            "options.term must be a terminal name, got {term:?}"
        )));
    }
    let scrollback = opts
        .integer("scrollback", 0.0, f64::from(screen::MAX_SCROLLBACK))?
        .map_or(1000, |n| n as usize);
    let timeout = opts.millis("timeoutMs")?.map(Duration::from_millis);
    let record = match opts.string("record")? {
        Some(path) if path.is_empty() || path.contains('\0') => {
            return Err(CoreError::invalid_arg(format!(
                "options.record must be a file path for the recording, got {path:?}"
            )));
        }
        path => path.map(std::path::PathBuf::from),
    };
    let answer_queries = opts.bool("answerQueries")?.unwrap_or(true);
    let sandbox = opts.sandbox("sandbox")?;
    let conpty = opts.conpty("conpty")?;
    // Bridged to a CancelToken by the JS layer.
    opts.skip("signal");
    Ok(SpawnOptions {
        command,
        args,
        shell,
        cwd,
        env,
        base_env,
        inherit_env,
        cols,
        rows,
        term,
        scrollback,
        timeout,
        record,
        answer_queries,
        sandbox,
        conpty,
        ..SpawnOptions::default()
    })
}

/// `$SHELL` of the environment the program inherits, else `/bin/sh`.
fn default_shell(base: &Option<Vec<(String, String)>>, env: &[(String, Option<String>)]) -> String {
    let from_env = env
        .iter()
        .rev()
        .find(|(k, _)| k == "SHELL")
        .and_then(|(_, v)| v.clone());
    let from_base = match base {
        Some(base) => base
            .iter()
            .find(|(k, _)| k == "SHELL")
            .map(|(_, v)| v.clone()),
        None => std::env::var("SHELL").ok(),
    };
    from_env
        .or(from_base)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".to_owned())
}

/// How the JS layer wants a session started (internal).
#[napi(object)]
pub struct StartHow {
    /// Deliver output to the pump as text (there is a text listener).
    pub stream_output: bool,
    /// Deliver output to the pump as raw bytes (there is a raw listener).
    pub stream_raw: Option<bool>,
    /// The environment to inherit (a worker's `process.env`); default: this process's.
    pub base_env: Option<std::collections::HashMap<String, String>>,
    /// Keep the stripped output, head and tail up to this many bytes (exec).
    pub capture_limit: Option<f64>,
    /// Run with plain pipes instead of a pty (exec with `pty: false`).
    pub pipes: Option<bool>,
    /// `false`: the running session does not keep the event loop alive (the
    /// terminal tools' sessions, like a registry's handles). Default: it does.
    pub keep_alive: Option<bool>,
}
