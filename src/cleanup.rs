//! Teardown: when a JS environment goes away (the process exits, or a worker
//! thread ends) the programs it started must not outlive it.
//!
//! Each JS thread keeps a list of weak references to its sessions, shells and
//! registries and registers one environment cleanup hook, which SIGKILLs every
//! process tree still running. Weak references keep nothing alive, and dead
//! entries are pruned as new ones arrive. `process.exit()` skips cleanup hooks,
//! so the JS layer also calls [`kill_all_started`] on the process `exit` event.

use std::cell::RefCell;
use std::rc::Rc;

use napi::Env;

use std::sync::Weak;

use crate::core::session::WeakSession;
use crate::core::shell::Shell;
use crate::core::tools::registry::WeakRegistry;

/// Something started from JS that owns process trees.
#[derive(Clone)]
pub enum Owner {
    /// A PtySession (or an exec).
    Session(WeakSession),
    /// A ToolRegistry and its handles.
    Registry(WeakRegistry),
    /// A Shell: its shell, the commands in its terminal, its command files.
    Shell(Weak<Shell>),
}

impl Owner {
    fn alive(&self) -> bool {
        match self {
            Owner::Session(w) => w.upgrade().is_some_and(|s| s.running()),
            Owner::Registry(w) => w.upgrade().is_some(),
            Owner::Shell(w) => w.upgrade().is_some(),
        }
    }

    fn kill_now(&self) {
        match self {
            Owner::Session(w) => {
                if let Some(s) = w.upgrade() {
                    s.kill_now();
                }
            }
            Owner::Registry(w) => {
                if let Some(r) = w.upgrade() {
                    r.kill_all_now();
                }
            }
            Owner::Shell(w) => {
                if let Some(s) = w.upgrade() {
                    s.kill_now();
                }
            }
        }
    }
}

type Owners = Rc<RefCell<Vec<Owner>>>;

thread_local! {
    /// This JS thread's owners; `None` until the first one (and the hook) exists.
    // Clippy 1.96 for windows-gnu flags this already-const initializer.
    #[cfg_attr(windows, allow(clippy::missing_const_for_thread_local))]
    static OWNERS: RefCell<Option<Owners>> = const { RefCell::new(None) };
}

/// Kills `owner`'s process trees when `env` is torn down.
pub fn track(env: &Env, owner: Owner) {
    OWNERS.with(|cell| {
        let mut slot = cell.borrow_mut();
        let owners = match &*slot {
            Some(owners) => owners.clone(),
            None => {
                let owners: Owners = Rc::new(RefCell::new(Vec::new()));
                let hook_owners = owners.clone();
                let registered = env.add_env_cleanup_hook(hook_owners, |owners| {
                    for owner in owners.borrow().iter() {
                        owner.kill_now();
                    }
                });
                if registered.is_err() {
                    return;
                }
                *slot = Some(owners.clone());
                owners
            }
        };
        let mut list = owners.borrow_mut();
        list.retain(Owner::alive);
        list.push(owner);
    });
}

/// Kills the process trees of everything this JS thread started that is still
/// running. The JS layer calls it from `process.on('exit')`, because
/// `process.exit()` does not run environment cleanup hooks.
#[napi_derive::napi(catch_unwind)]
// `#[napi]` registers the function with Node only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn kill_all_started() {
    OWNERS.with(|cell| {
        if let Some(owners) = &*cell.borrow() {
            for owner in owners.borrow().iter() {
                owner.kill_now();
            }
        }
    });
}
