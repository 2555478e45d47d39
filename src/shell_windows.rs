//! The native half of `Shell` on Windows: the persistent shell is not
//! available there yet (see `core::shell`, Windows), so the constructor
//! throws `ERR_UNSUPPORTED`; `applyBashFixups` (text only) works as on Unix.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::shell as core_shell;
use crate::error::IntoJs;

/// The native half of `Shell`. Internal: use `Shell` from the package.
#[napi]
pub struct NativeShell {}

#[napi]
impl NativeShell {
    /// Throws `ERR_UNSUPPORTED`: the persistent shell needs a Unix shell.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, _options: Option<Unknown>, _how: Option<Unknown>) -> Result<Self> {
        Err(core_shell::unsupported()).into_js(&env)
    }
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
pub fn apply_bash_fixups(command: String) -> BashFixup {
    let fixed = core_shell::apply_bash_fixups(&command);
    BashFixup {
        command: fixed.command,
        stripped: fixed.stripped,
    }
}
