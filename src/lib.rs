//! ptypilot: drive interactive terminal programs from Node.js.
//!
//! `core` is the engine (no Node-API); the other modules are the bindings,
//! one file per JS class, plus `error` (coded JS errors), `cancel`
//! (AbortSignal bridge) and `incidents` (contained panics reach JS).

pub mod core;

mod cancel;
mod cleanup;
mod error;
mod fastpath;
mod incidents;
mod keys;
mod network;
mod node_pty;
mod options;
mod process;
mod pty_session;
mod screen_model;
mod shell;
mod tool_registry;
