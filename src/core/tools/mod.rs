//! Interactive tools: specs, schemas, provider definitions and call validation.
//!
//! An interactive tool (`git` with commands `stage`, `rebase`, `log`) is
//! driven by an LLM through one tool whose input is one of four actions —
//! `spawn` a command, `fetch` its state, `apply` input to it, `abort` it (see
//! "Tool protocol" in DESIGN.md). This module is the pure part of that:
//!
//! - [`ToolSpec::from_json`] checks a tool definition as JS passes it
//!   (`ERR_INVALID_ARG`, messages naming the field).
//! - [`ToolSpec::schema`] is the canonical input schema, a top-level `oneOf`
//!   with one variant per action.
//! - [`ToolSpec::definition`] is what a provider accepts: Anthropic and
//!   OpenAI both reject `oneOf` at the top of a tool's input schema, so they
//!   get an equivalent flat schema (see [`schema`] for the evidence).
//! - [`ToolSpec::validate_call`] checks a call strictly against the variant
//!   of its action, whichever schema the model saw (`ERR_INVALID_INPUT`,
//!   messages naming the field).
//! - [`truncate_middle`] bounds content sent back to the model.
//!
//! ```
//! use ptypilot::core::tools::{ToolCall, ToolSpec};
//! use serde_json::json;
//!
//! let tool = ToolSpec::from_json(&json!({
//!     "name": "git",
//!     "commands": [
//!         { "name": "stage", "program": ["git", "add", "--patch"] },
//!         { "name": "log", "program": ["git", "log", "--oneline"], "pty": false },
//!     ],
//! }))
//! .unwrap();
//! assert!(tool.command("stage").unwrap().accepts_input());
//!
//! let call = tool.validate_call(&json!({ "action": "spawn", "command": "stage" })).unwrap();
//! assert_eq!(call, ToolCall::Spawn { command: "stage".into(), args: vec![] });
//!
//! let err = tool.validate_call(&json!({ "action": "fetch" })).unwrap_err();
//! assert_eq!(err.message, "input.id is required for action \"fetch\"");
//! ```

mod call;
mod content;
pub mod registry;
pub mod schema;
mod spec;

pub use call::ToolCall;
pub use content::{DEFAULT_MAX_CONTENT_CHARS, truncate_middle};
pub use schema::{DefinitionFormat, definitions};
pub use spec::{CommandSpec, ToolSpec};
