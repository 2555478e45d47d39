//! The panic boundary: every call into code that may panic on what a program
//! prints or what a caller passes runs under [`catch`], so a panic never
//! unwinds across a thread's top (the session thread would die and its exit
//! never come) or across a Node-API or libuv callback (where it aborts the
//! process).
//!
//! A contained panic is an [`Incident`]: its message and source location are
//! captured by a panic hook of our own (which keeps them off stderr while a
//! [`catch`] is on the stack; other panics still reach the previous hook), and
//! [`report`] hands it to every registered [`Reporter`] — the Node binding
//! turns it into a process warning. Whoever called [`catch`] decides how to
//! carry on: the session rebuilds its screen model, the fast path hands the
//! terminal back to the session thread.
//!
//! [`test_hook`] makes the screen feed panic on a chosen byte string, so tests
//! can prove containment whatever the screen model does.
//!
//! ```
//! use ptypilot::core::guard;
//! let v: Vec<u8> = Vec::new();
//! let err = guard::catch(|| v[3]).unwrap_err();
//! assert!(err.message.contains("index out of bounds"), "{}", err.message);
//! assert_eq!(guard::catch(|| 7).unwrap(), 7);
//! ```

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once};

/// A panic that [`catch`] contained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    /// The panic's message and where it happened (`file:line:col`).
    pub message: String,
}

thread_local! {
    /// How many [`catch`] calls are on this thread's stack.
    // Clippy 1.96 for windows-gnu flags this already-const initializer.
    #[cfg_attr(windows, allow(clippy::missing_const_for_thread_local))]
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// What the hook saw of the last panic inside a [`catch`] on this thread.
    #[cfg_attr(windows, allow(clippy::missing_const_for_thread_local))]
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the hook once: inside a [`catch`] it records the panic instead of
/// printing it; elsewhere it defers to the hook that was there before.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                return previous(info);
            }
            let payload = info.payload();
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            let message = match info.location() {
                Some(at) => format!(
                    "{text} (at {}:{}:{})",
                    short(at.file()),
                    at.line(),
                    at.column()
                ),
                None => text,
            };
            LAST.with(|last| *last.borrow_mut() = Some(message));
        }));
    });
}

/// A source path without the build machine's prefix: `vt100-0.18.1/src/screen.rs`
/// for a dependency, `src/core/...` for this crate.
fn short(file: &str) -> &str {
    const REGISTRY: &str = "/registry/src/";
    match file.find(REGISTRY) {
        Some(at) => {
            let rest = &file[at + REGISTRY.len()..];
            rest.split_once('/').map_or(rest, |(_, path)| path)
        }
        None => file,
    }
}

/// Runs `f`, turning a panic inside it into an [`Incident`].
///
/// After an `Err`, whatever `f` was changing may be half-changed: the caller
/// must throw it away or rebuild it (this is why `f` need not be
/// `UnwindSafe`). The incident is not reported; see [`report`].
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Incident> {
    install_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|payload| {
        let message = LAST
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| "a panic".to_owned());
        // A payload whose `Drop` panics must not unwind from here.
        let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(payload)));
        Incident { message }
    })
}

/// Receives contained panics (see [`report`]).
pub trait Reporter: Send + Sync {
    /// Tells about one contained panic; `what` is a sentence for people.
    /// Returns false when this reporter is gone for good (it is then dropped).
    fn report(&self, what: &str) -> bool;
}

static REPORTERS: Mutex<Vec<Arc<dyn Reporter>>> = Mutex::new(Vec::new());

/// Adds a reporter (the binding adds one per JS thread).
pub fn add_reporter(reporter: Arc<dyn Reporter>) {
    lock_reporters().push(reporter);
}

/// Removes a reporter added with [`add_reporter`].
pub fn remove_reporter(reporter: &Arc<dyn Reporter>) {
    lock_reporters().retain(|r| !Arc::ptr_eq(r, reporter));
}

fn lock_reporters() -> std::sync::MutexGuard<'static, Vec<Arc<dyn Reporter>>> {
    REPORTERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Tells every reporter about a contained panic, so that none is silent.
pub fn report(what: &str) {
    let reporters: Vec<Arc<dyn Reporter>> = lock_reporters().clone();
    let mut gone = Vec::new();
    for reporter in reporters {
        // A reporter must not take the caller down either.
        if !catch(|| reporter.report(what)).unwrap_or(false) {
            gone.push(reporter);
        }
    }
    if !gone.is_empty() {
        lock_reporters().retain(|r| !gone.iter().any(|g| Arc::ptr_eq(r, g)));
    }
}

/// A forced panic for tests: while a needle is set, feeding the screen model
/// output that contains it panics inside the boundary, as a bug in the model
/// would. Costs one atomic load per batch when no needle is set.
pub mod test_hook {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    static ARMED: AtomicBool = AtomicBool::new(false);
    static NEEDLES: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

    /// Sets (`on`) or clears a needle; several can be set at once.
    pub fn set(needle: &[u8], on: bool) {
        let mut needles = NEEDLES.lock().unwrap_or_else(|e| e.into_inner());
        needles.retain(|n| n != needle);
        if on && !needle.is_empty() {
            needles.push(needle.to_vec());
        }
        ARMED.store(!needles.is_empty(), Ordering::Relaxed);
    }

    /// Panics when `bytes` contains a needle.
    pub fn check(bytes: &[u8]) {
        if !ARMED.load(Ordering::Relaxed) {
            return;
        }
        let hit = NEEDLES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|n| bytes.windows(n.len()).any(|w| w == n.as_slice()));
        if hit {
            panic!("forced panic (test hook)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn catch_returns_the_value_or_the_message_and_location() {
        assert_eq!(catch(|| 1 + 1), Ok(2));
        let err = catch(|| -> u8 { panic!("boom {}", 7) }).unwrap_err();
        assert!(err.message.starts_with("boom 7 (at "), "{}", err.message);
        assert!(err.message.contains("guard.rs:"), "{}", err.message);
        // Nested: the inner one is caught, the outer goes on.
        let outer = catch(|| catch(|| -> u8 { panic!("inner") }).unwrap_err().message);
        assert!(outer.unwrap().starts_with("inner"));
    }

    struct Count(AtomicUsize, bool);
    impl Reporter for Count {
        fn report(&self, what: &str) -> bool {
            // Other tests report too, at the same time.
            if !what.starts_with("guard test") {
                return true;
            }
            self.0.fetch_add(1, Ordering::Relaxed);
            self.1
        }
    }

    #[test]
    fn reporters_hear_every_report_until_they_are_gone() {
        let stays = Arc::new(Count(AtomicUsize::new(0), true));
        let goes = Arc::new(Count(AtomicUsize::new(0), false));
        add_reporter(stays.clone());
        add_reporter(goes.clone());
        report("guard test 1");
        report("guard test 2");
        remove_reporter(&(stays.clone() as Arc<dyn Reporter>));
        report("guard test 3");
        assert_eq!(stays.0.load(Ordering::Relaxed), 2);
        assert_eq!(goes.0.load(Ordering::Relaxed), 1);
    }
}
