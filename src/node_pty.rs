//! The native half of `ptypilot/node-pty` (lib/node-pty.js): how its `spawn`
//! starts a session (`NativeSession.startNodePty`), and `openPtyPair` for
//! its `open()`. The JS layer has already applied node-pty's defaults
//! (environment, `PWD`, `TERM`, size), so this only checks and converts.

use std::collections::HashMap;
#[cfg(unix)]
use std::os::fd::IntoRawFd;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::session::{RunAs, SpawnOptions};
use crate::core::{Error as CoreError, Result as CoreResult, pty};
use crate::error::IntoJs;

/// How `ptypilot/node-pty` starts a program (internal).
#[napi(object)]
pub struct NodePtyStart {
    /// The program, looked up on the environment's `PATH` as `execvp` does.
    pub file: String,
    /// Its arguments (argv from 1).
    pub args: Vec<String>,
    /// The whole environment the program gets, exactly.
    pub env: HashMap<String, String>,
    /// Working directory.
    pub cwd: String,
    /// Width, an integer from 1 to 65535.
    pub cols: f64,
    /// Height, an integer from 1 to 65535.
    pub rows: f64,
    /// User to run as: used only together with `gid`, as node-pty does.
    pub uid: Option<u32>,
    /// Group to run as: used only together with `uid`.
    pub gid: Option<u32>,
    /// Output goes to the pump as text (UTF-8).
    pub text: bool,
    /// Output goes to the pump as raw bytes.
    pub raw: bool,
    /// The sandbox (the `sandbox` option of `PtyOptions`); absent: off.
    pub sandbox: Option<serde_json::Value>,
    /// Windows: the pseudo console inherits the cursor (node-pty's
    /// `conptyInheritCursor`); ignored elsewhere.
    pub conpty_inherit_cursor: Option<bool>,
}

/// Core spawn options for `start_node_pty`: the environment exactly as given,
/// no screen model (the caller renders the output; any size a `winsize`
/// holds), no answers to terminal queries (the caller's emulator answers).
pub(crate) fn spawn_options(o: NodePtyStart) -> CoreResult<SpawnOptions> {
    let (cols, rows) = check_size(o.cols, o.rows)?;
    let sandbox = match &o.sandbox {
        Some(value) => crate::core::sandbox::Policy::from_json(value, "options.sandbox")?,
        None => crate::core::sandbox::Policy::default(),
    };
    let mut env: Vec<(String, Option<String>)> =
        o.env.into_iter().map(|(k, v)| (k, Some(v))).collect();
    // Sorted, so the child's environment does not depend on hash order
    // (the names are unique).
    env.sort();
    Ok(SpawnOptions {
        command: o.file,
        args: o.args,
        cwd: Some(o.cwd.into()),
        env,
        inherit_env: false,
        exact_env: true,
        cols,
        rows,
        scrollback: 0,
        answer_queries: false,
        model: false,
        stream_output: o.text,
        stream_raw: o.raw,
        run_as: o.uid.zip(o.gid).map(|(uid, gid)| RunAs { uid, gid }),
        // node-pty's input modes: a typed character erased whole in a line
        // being edited (UTF-8 only), any key restarting stopped output, a bell
        // when the line is full.
        #[cfg(unix)]
        input_flags: libc::IXANY | libc::IMAXBEL | if o.text { libc::IUTF8 } else { 0 },
        sandbox,
        conpty: pty::ConPtyFlags {
            inherit_cursor: o.conpty_inherit_cursor.unwrap_or(false),
            ..pty::ConPtyFlags::default()
        },
        ..SpawnOptions::default()
    })
}

/// A pty size in range (integers from 1 to 65535), or `ERR_INVALID_ARG`
/// naming it. Sessions without a screen model take any such size.
pub(crate) fn check_size(cols: f64, rows: f64) -> CoreResult<(u16, u16)> {
    let check = |name: &str, value: f64| {
        if value.fract() == 0.0 && (1.0..=f64::from(u16::MAX)).contains(&value) {
            Ok(value as u16)
        } else {
            Err(CoreError::invalid_arg(format!(
                "{name} must be an integer between 1 and {}, got {}",
                u16::MAX,
                crate::core::error::js_number(value)
            )))
        }
    };
    Ok((check("cols", cols)?, check("rows", rows)?))
}

/// Both descriptors of a new pty pair, owned by the caller.
#[napi(object)]
// `#[napi]` registers with Node only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub struct PtyPairFds {
    /// The master (close-on-exec).
    pub master: i32,
    /// The slave (close-on-exec; not this process's controlling terminal).
    pub slave: i32,
    /// The slave's path (`/dev/pts/3`).
    pub pty: String,
}

/// Opens a pty pair of `cols` × `rows` with no program on it, for
/// `ptypilot/node-pty`'s `open()`. The caller owns both descriptors and must
/// close them.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
#[cfg(unix)]
pub fn open_pty_pair(env: &Env, cols: f64, rows: f64) -> Result<PtyPairFds> {
    let (cols, rows) = check_size(cols, rows).into_js(env)?;
    let pair = pty::open_pair(cols, rows)
        .map_err(|e| CoreError::io("open a pty", &e))
        .into_js(env)?;
    Ok(PtyPairFds {
        master: pair.master.into_raw_fd(),
        slave: pair.slave.into_raw_fd(),
        pty: pair.name,
    })
}

/// `open()` on Windows: `ERR_UNSUPPORTED` (a pseudo console has no pty
/// pair to hand out).
#[napi(catch_unwind)]
#[cfg(windows)]
pub fn open_pty_pair(env: &Env, cols: f64, rows: f64) -> Result<PtyPairFds> {
    check_size(cols, rows).into_js(env)?;
    Err(CoreError::new(
        crate::core::ErrorCode::Unsupported,
        "open() is not supported on Windows: a pseudo console has no pty pair to hand out",
    ))
    .into_js(env)
}

/// Sets the size of the pty whose master (or slave) is `fd`, for `open()`'s
/// `resize`; the slave's foreground program gets `SIGWINCH`.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn resize_pty(env: &Env, fd: i32, cols: f64, rows: f64) -> Result<()> {
    let (cols, rows) = check_size(cols, rows).into_js(env)?;
    pty::set_size(fd, cols, rows)
        .map_err(|e| CoreError::io("resize the terminal", &e))
        .into_js(env)
}
