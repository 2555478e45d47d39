//! Contained panics reach JS: each JS thread that loads ptypilot registers a
//! listener ([`on_incident`]; the JS layer turns each report into a process
//! warning), so a panic the boundary ([`crate::core::guard`]) contained is
//! never silent. Also the test hook that forces such a panic.
//!
//! This file is where the Node-API side meets the boundary: the other places
//! are `#[napi(catch_unwind)]` on every exported function (napi-rs turns a
//! panic into a thrown error instead of aborting the process; the JS layer
//! gives it the code `ERR_INTERNAL`), [`contain`] around the bodies of
//! threadsafe-function callbacks, and the libuv callbacks of the fast path.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

use crate::core::guard::{self, Reporter};

type Listener = ThreadsafeFunction<String, (), String, Status, false, true>;

struct JsReporter(Listener);

impl Reporter for JsReporter {
    fn report(&self, what: &str) -> bool {
        let status = self
            .0
            .call(what.to_owned(), ThreadsafeFunctionCallMode::NonBlocking);
        status != Status::Closing
    }
}

/// Registers `listener(message)` to hear of every panic the boundary
/// contains, in any session, until this JS environment goes away. Internal:
/// the JS layer calls it once per thread and emits process warnings.
#[napi(catch_unwind)]
// `#[napi]` registers the function with Node only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn on_incident(env: Env, listener: Function<'_, String, ()>) -> Result<()> {
    let tsfn: Listener = listener
        .build_threadsafe_function::<String>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()?;
    let reporter: Arc<dyn Reporter> = Arc::new(JsReporter(tsfn));
    guard::add_reporter(reporter.clone());
    env.add_env_cleanup_hook(reporter, |reporter| guard::remove_reporter(&reporter))?;
    Ok(())
}

/// Test hook: while `needle` is set (`on`), output containing it makes the
/// screen model panic, inside the boundary, on whichever thread reads it.
/// Not part of the public API.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn test_panic_on(needle: String, on: bool) {
    guard::test_hook::set(needle.as_bytes(), on);
}

/// Test hook: panics in an exported function, to show that the caller gets
/// an error (`ERR_INTERNAL` once the JS layer mapped it) and the process
/// goes on. Not part of the public API.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn test_panic(message: String) {
    panic!("{message}");
}

/// Runs the body of a callback that Node-API or libuv calls (where a panic
/// would abort the process) under the boundary; a panic is reported and
/// `fallback` returned.
pub fn contain<T>(what: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    match guard::catch(f) {
        Ok(value) => value,
        Err(incident) => {
            guard::report(&format!("{what} panicked: {}", incident.message));
            fallback
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every function exported to JS carries `catch_unwind`: without it a
    /// panic in it aborts the process (napi-rs calls it from an `extern "C"`
    /// function, which cannot unwind).
    #[test]
    fn every_exported_function_catches_panics() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let attr = line.trim();
                let napi = attr == "#[napi]"
                    || attr.starts_with("#[napi(")
                    || attr.starts_with("#[napi_derive::napi");
                if !napi {
                    continue;
                }
                let item = lines[i + 1..]
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| !l.starts_with("#[") && !l.starts_with("//"))
                    .unwrap_or("");
                if !item.contains("fn ") {
                    continue;
                }
                checked += 1;
                assert!(
                    attr.contains("catch_unwind"),
                    "{}:{}: an exported function without catch_unwind: {attr} {item}",
                    path.display(),
                    i + 1
                );
            }
        }
        assert!(checked > 40, "only {checked} exported functions found");
    }
}
