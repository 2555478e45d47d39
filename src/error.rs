//! Turns core errors into JS errors with a stable `code`.
//!
//! Every error thrown or rejected by the addon goes through [`js_error`] (when
//! a JS environment is at hand) or [`napi_error`] (when it is not), so JS can
//! rely on `err.code === 'ERR_SPAWN'` and, for spawn failures, `err.errno`
//! (negative, as in Node) and `err.path`.

use napi::bindgen_prelude::*;

use crate::core::Error as CoreError;

/// A JS `Error` carrying `code` (and `errno`, `syscall`, `path` for spawn
/// failures), ready to be thrown or used to reject a promise.
pub fn js_error(env: &Env, err: &CoreError) -> napi::Error {
    match build(env, err) {
        Ok(value) => value,
        Err(_) => napi_error(err),
    }
}

fn build(env: &Env, err: &CoreError) -> napi::Result<napi::Error> {
    let mut obj = env.create_error(napi::Error::new(
        Status::GenericFailure,
        err.message.clone(),
    ))?;
    obj.set_named_property("code", err.code.as_str())?;
    if let Some(errno) = err.errno {
        obj.set_named_property("errno", -errno)?;
        obj.set_named_property("syscall", "spawn")?;
        obj.set_named_property("errnoName", crate::core::error::errno_name(errno))?;
    }
    if let Some(path) = &err.path {
        obj.set_named_property("path", path.as_str())?;
    }
    Ok(napi::Error::from(obj.into_unknown(env)?))
}

/// An error with `code` set, for places without a JS environment.
pub fn napi_error(err: &CoreError) -> napi::Error {
    napi::Error::new(
        Status::GenericFailure,
        format!("{}: {}", err.code, err.message),
    )
}

/// Converts a core result, throwing a coded JS error on failure.
pub trait IntoJs<T> {
    /// `Ok` passes through; `Err` becomes [`js_error`].
    fn into_js(self, env: &Env) -> napi::Result<T>;
}

impl<T> IntoJs<T> for std::result::Result<T, CoreError> {
    fn into_js(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| js_error(env, &e))
    }
}
