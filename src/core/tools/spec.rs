//! Tool and command specs, checked from the JSON that JS passes in.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::call::Validators;
use super::schema;
use crate::core::error::{Error, Result};

/// Default quiet period before a screen counts as settled, in milliseconds.
pub const DEFAULT_SETTLE_MS: u64 = 100;
/// Largest accepted `settleMs` (one minute).
pub const MAX_SETTLE_MS: u64 = 60_000;
/// Largest accepted `timeoutMs` (one day).
pub const MAX_TIMEOUT_MS: u64 = 86_400_000;
/// Longest tool or command name. Anthropic and OpenAI both require tool
/// names to match `^[a-zA-Z0-9_-]{1,64}$`.
pub const MAX_NAME_LEN: usize = 64;

const TOOL_KEYS: &[&str] = &["name", "description", "commands", "cwd"];
const COMMAND_KEYS: &[&str] = &[
    "name",
    "description",
    "program",
    "pty",
    "acceptsInput",
    "argsSchema",
    "settleMs",
    "timeoutMs",
    "env",
];

/// One command of an interactive tool (`ToolCommand` in JS).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec {
    /// The name the model picks in `spawn` (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the command does, shown to the model.
    pub description: Option<String>,
    /// The argv prefix; a spawn call's `args` are appended.
    pub program: Vec<String>,
    /// Run in a pseudo-terminal (default true); false: plain pipes, stdout
    /// is the content.
    pub pty: bool,
    /// Whether `apply` may send input to it (default: `pty`).
    pub accepts_input: bool,
    /// JSON schema for the call's `args` (an array of strings).
    pub args_schema: Option<Value>,
    /// Quiet period before the screen counts as settled, in milliseconds.
    pub settle_ms: u64,
    /// Terminate the command after this many milliseconds.
    pub timeout_ms: Option<u64>,
    /// Environment variables set for the command, over the inherited ones.
    pub env: BTreeMap<String, String>,
}

impl CommandSpec {
    /// Whether `apply` may send input to this command. The registry checks
    /// this for the handle's command, since the schema cannot.
    pub fn accepts_input(&self) -> bool {
        self.accepts_input
    }
}

/// A checked interactive tool (`InteractiveTool` in JS), with its call
/// validators compiled once.
#[derive(Clone)]
pub struct ToolSpec {
    name: String,
    description: Option<String>,
    commands: Vec<CommandSpec>,
    cwd: Option<String>,
    pub(super) validators: Arc<Validators>,
}

impl fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("commands", &self.commands)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

impl ToolSpec {
    /// Checks a tool definition (`InteractiveTool`) and compiles its schemas.
    ///
    /// Fails with `ERR_INVALID_ARG` and a message naming the field, e.g.
    /// `unknown key "programm" in tool "git" command 0`. A `null` optional
    /// field counts as absent.
    pub fn from_json(value: &Value) -> Result<ToolSpec> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid_arg(format!("tool must be an object, got {}", show(value)))
        })?;
        let name = match field(obj, "name") {
            Some(Value::String(name)) if valid_name(name) => name.clone(),
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "tool name must match ^[a-zA-Z0-9_-]{{1,64}}$ (letters, digits, _ and -; \
                     what Anthropic and OpenAI accept), got {}",
                    show(other)
                )));
            }
            None => return Err(Error::invalid_arg("tool name is required")),
        };
        let at = format!("tool \"{name}\"");
        reject_unknown_keys(obj, TOOL_KEYS, &at)?;
        let description = opt_string(obj, "description", &at)?;
        let cwd = opt_string(obj, "cwd", &at)?;
        if cwd.as_deref() == Some("") {
            return Err(Error::invalid_arg(format!("{at}: cwd must not be empty")));
        }
        let commands = match field(obj, "commands") {
            Some(Value::Array(items)) if !items.is_empty() => items,
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{at}: commands must be a non-empty array of commands, got {}",
                    show(other)
                )));
            }
            None => {
                return Err(Error::invalid_arg(format!(
                    "{at}: commands is required (a non-empty array)"
                )));
            }
        };
        let mut parsed: Vec<CommandSpec> = Vec::with_capacity(commands.len());
        for (i, item) in commands.iter().enumerate() {
            let command = CommandSpec::from_json(item, &name, i)?;
            if let Some(j) = parsed.iter().position(|c| c.name == command.name) {
                return Err(Error::invalid_arg(format!(
                    "{at}: command names must be unique, \"{}\" is used by commands {j} and {i}",
                    command.name
                )));
            }
            parsed.push(command);
        }
        let validators = Validators::build(&schema::oneof_schema(&parsed), &parsed)?;
        Ok(ToolSpec {
            name,
            description,
            commands: parsed,
            cwd,
            validators: Arc::new(validators),
        })
    }

    /// The tool name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's own description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The working directory commands run in, if the tool sets one.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The commands, in definition order.
    pub fn commands(&self) -> &[CommandSpec] {
        &self.commands
    }

    /// The command called `name`.
    pub fn command(&self, name: &str) -> Option<&CommandSpec> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// Whether some command accepts input (so the `apply` action exists).
    pub fn accepts_input(&self) -> bool {
        self.commands.iter().any(CommandSpec::accepts_input)
    }
}

impl CommandSpec {
    fn from_json(value: &Value, tool: &str, index: usize) -> Result<CommandSpec> {
        let at = format!("tool \"{tool}\" command {index}");
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid_arg(format!("{at} must be an object, got {}", show(value)))
        })?;
        reject_unknown_keys(obj, COMMAND_KEYS, &at)?;
        let name = match field(obj, "name") {
            Some(Value::String(name)) if valid_name(name) => name.clone(),
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{at}: name must match ^[a-zA-Z0-9_-]{{1,64}}$ (letters, digits, _ and -), \
                     got {}",
                    show(other)
                )));
            }
            None => return Err(Error::invalid_arg(format!("{at}: name is required"))),
        };
        let at = format!("{at} (\"{name}\")");
        let description = opt_string(obj, "description", &at)?;
        let program = match field(obj, "program") {
            Some(Value::Array(items)) if !items.is_empty() => {
                let mut program = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) if s.contains('\0') => {
                            return Err(Error::invalid_arg(format!(
                                "{at}: program[{i}] must not contain NUL bytes"
                            )));
                        }
                        Value::String(s) if i == 0 && s.is_empty() => {
                            return Err(Error::invalid_arg(format!(
                                "{at}: program[0] (the program to run) must not be empty"
                            )));
                        }
                        Value::String(s) => program.push(s.clone()),
                        other => {
                            return Err(Error::invalid_arg(format!(
                                "{at}: program[{i}] must be a string, got {}",
                                show(other)
                            )));
                        }
                    }
                }
                program
            }
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{at}: program must be a non-empty array of strings (argv), got {}",
                    show(other)
                )));
            }
            None => {
                return Err(Error::invalid_arg(format!(
                    "{at}: program is required (a non-empty array of strings, e.g. [\"git\", \
                     \"add\", \"--patch\"])"
                )));
            }
        };
        let pty = opt_bool(obj, "pty", &at)?.unwrap_or(true);
        let accepts_input = opt_bool(obj, "acceptsInput", &at)?.unwrap_or(pty);
        let settle_ms =
            opt_ms(obj, "settleMs", 0, MAX_SETTLE_MS, &at)?.unwrap_or(DEFAULT_SETTLE_MS);
        let timeout_ms = opt_ms(obj, "timeoutMs", 1, MAX_TIMEOUT_MS, &at)?;
        let env = match field(obj, "env") {
            None => BTreeMap::new(),
            Some(Value::Object(vars)) => {
                let mut env = BTreeMap::new();
                for (key, value) in vars {
                    if key.is_empty() || key.contains('=') || key.contains('\0') {
                        return Err(Error::invalid_arg(format!(
                            "{at}: env variable names must be non-empty without '=' or NUL, got {}",
                            show(&Value::String(key.clone()))
                        )));
                    }
                    match value {
                        Value::String(v) if !v.contains('\0') => {
                            env.insert(key.clone(), v.clone());
                        }
                        other => {
                            return Err(Error::invalid_arg(format!(
                                "{at}: env.{key} must be a string without NUL bytes, got {}",
                                show(other)
                            )));
                        }
                    }
                }
                env
            }
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{at}: env must be an object of strings, got {}",
                    show(other)
                )));
            }
        };
        let args_schema = match field(obj, "argsSchema") {
            None => None,
            Some(schema @ Value::Object(map)) => {
                check_args_type(map.get("type"), &at)?;
                if let Err(e) = jsonschema::validator_for(schema) {
                    return Err(Error::invalid_arg(format!(
                        "{at}: argsSchema is not a valid JSON schema: {e}"
                    )));
                }
                Some(schema.clone())
            }
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{at}: argsSchema must be a JSON schema object for the args array, got {}",
                    show(other)
                )));
            }
        };
        Ok(CommandSpec {
            name,
            description,
            program,
            pty,
            accepts_input,
            args_schema,
            settle_ms,
            timeout_ms,
            env,
        })
    }
}

/// `args` is always an array of strings, so a schema typed otherwise could
/// never validate.
fn check_args_type(ty: Option<&Value>, at: &str) -> Result<()> {
    let ok = match ty {
        None => true,
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        Some(_) => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_arg(format!(
            "{at}: argsSchema must describe an array (args is a list of strings), got type {}",
            show(ty.unwrap_or(&Value::Null))
        )))
    }
}

/// `^[a-zA-Z0-9_-]{1,64}$`
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A field, with `null` treated as absent (JS `undefined` and `null` alike).
fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn reject_unknown_keys(obj: &Map<String, Value>, known: &[&str], at: &str) -> Result<()> {
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            let hint = known
                .iter()
                .find(|k| edit_distance(&k.to_ascii_lowercase(), &key.to_ascii_lowercase()) <= 2)
                .map(|k| format!(" (did you mean \"{k}\"?)"))
                .unwrap_or_default();
            return Err(Error::invalid_arg(format!(
                "unknown key {} in {at}{hint}; known keys: {}",
                show(&Value::String(key.clone())),
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn opt_string(obj: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>> {
    match field(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::invalid_arg(format!(
            "{at}: {key} must be a string, got {}",
            show(other)
        ))),
    }
}

fn opt_bool(obj: &Map<String, Value>, key: &str, at: &str) -> Result<Option<bool>> {
    match field(obj, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(Error::invalid_arg(format!(
            "{at}: {key} must be a boolean, got {}",
            show(other)
        ))),
    }
}

/// An integer number of milliseconds in `lo..=hi`. JS numbers may arrive as
/// floats (`100.0`), which count when they are whole.
fn opt_ms(obj: &Map<String, Value>, key: &str, lo: u64, hi: u64, at: &str) -> Result<Option<u64>> {
    let Some(value) = field(obj, key) else {
        return Ok(None);
    };
    let ms = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= hi as f64)
            .map(|f| f as u64)
    });
    match ms {
        Some(ms) if (lo..=hi).contains(&ms) => Ok(Some(ms)),
        _ => Err(Error::invalid_arg(format!(
            "{at}: {key} must be an integer between {lo} and {hi} (milliseconds), got {}",
            show(value)
        ))),
    }
}

/// A short rendering of a JSON value for messages: strings quoted and
/// shortened, containers named.
pub(super) fn show(value: &Value) -> String {
    match value {
        Value::String(s) => {
            let short: String = s.chars().take(60).collect();
            let quoted = Value::String(short).to_string();
            if s.chars().count() > 60 {
                format!("{}…\"", &quoted[..quoted.len() - 1])
            } else {
                quoted
            }
        }
        Value::Array(a) if a.is_empty() => "[]".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
        other => other.to_string(),
    }
}

/// Levenshtein distance, for "did you mean" hints on short keys.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::core::error::ErrorCode;

    fn git() -> Value {
        json!({
            "name": "git",
            "description": "Work with the git repository.",
            "commands": [
                { "name": "stage", "description": "Interactive staging (git add --patch)",
                  "program": ["git", "add", "--patch"] },
                { "name": "rebase", "program": ["git", "rebase", "-i"], "settleMs": 250.0,
                  "timeoutMs": 600000, "env": { "GIT_EDITOR": "vi" } },
                { "name": "log", "program": ["git", "log", "--oneline"], "pty": false,
                  "argsSchema": { "type": "array", "maxItems": 2 } },
            ],
        })
    }

    fn invalid(value: Value) -> String {
        let err = ToolSpec::from_json(&value).expect_err("should be rejected");
        assert_eq!(err.code, ErrorCode::InvalidArg, "{}", err.message);
        err.message
    }

    fn with_command(extra: Value) -> Value {
        let mut command = json!({ "name": "stage", "program": ["git", "add", "-p"] });
        for (k, v) in extra.as_object().unwrap() {
            command[k] = v.clone();
        }
        json!({ "name": "git", "commands": [command] })
    }

    #[test]
    fn parses_a_git_like_tool_with_defaults() {
        let tool = ToolSpec::from_json(&git()).unwrap();
        assert_eq!(tool.name(), "git");
        assert_eq!(tool.description(), Some("Work with the git repository."));
        assert_eq!(tool.cwd(), None);
        let names: Vec<&str> = tool.commands().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["stage", "rebase", "log"]);

        let stage = tool.command("stage").unwrap();
        assert!(stage.pty && stage.accepts_input());
        assert_eq!(stage.settle_ms, DEFAULT_SETTLE_MS);
        assert_eq!(stage.timeout_ms, None);
        assert_eq!(stage.program, ["git", "add", "--patch"]);

        let rebase = tool.command("rebase").unwrap();
        assert_eq!(rebase.settle_ms, 250);
        assert_eq!(rebase.timeout_ms, Some(600_000));
        assert_eq!(rebase.env.get("GIT_EDITOR").map(String::as_str), Some("vi"));

        let log = tool.command("log").unwrap();
        assert!(!log.pty && !log.accepts_input());
        assert!(log.args_schema.is_some());
        assert!(tool.accepts_input());
        assert!(tool.command("push").is_none());
    }

    #[test]
    fn accepts_input_can_be_overridden() {
        let tool = ToolSpec::from_json(&with_command(json!({ "acceptsInput": false }))).unwrap();
        assert!(!tool.accepts_input());
        let tool =
            ToolSpec::from_json(&with_command(json!({ "pty": false, "acceptsInput": true })))
                .unwrap();
        assert!(tool.accepts_input());
    }

    #[test]
    fn null_optional_fields_count_as_absent() {
        let tool = ToolSpec::from_json(&with_command(json!({
            "description": null, "settleMs": null, "pty": null, "env": null, "argsSchema": null,
        })))
        .unwrap();
        assert_eq!(tool.commands()[0].settle_ms, DEFAULT_SETTLE_MS);
        assert!(tool.commands()[0].pty);
    }

    #[test]
    fn tool_names_follow_the_provider_rule() {
        for name in ["git", "my-tool_2", &"x".repeat(64)] {
            let tool = json!({ "name": name, "commands": [{ "name": "a", "program": ["true"] }] });
            assert!(ToolSpec::from_json(&tool).is_ok(), "{name}");
        }
        for name in [
            json!("my tool"),
            json!(""),
            json!("git.stage"),
            json!("x".repeat(65)),
            json!(3),
        ] {
            let msg = invalid(
                json!({ "name": name, "commands": [{ "name": "a", "program": ["true"] }] }),
            );
            assert!(
                msg.starts_with("tool name must match ^[a-zA-Z0-9_-]{1,64}$"),
                "{msg}"
            );
        }
        assert_eq!(invalid(json!({ "commands": [] })), "tool name is required");
        assert_eq!(invalid(json!("git")), "tool must be an object, got \"git\"");
    }

    #[test]
    fn unknown_keys_are_named_with_their_place() {
        let msg = invalid(with_command(json!({ "programm": ["x"] })));
        assert!(
            msg.starts_with(
                "unknown key \"programm\" in tool \"git\" command 0 (did you mean \"program\"?)"
            ),
            "{msg}"
        );
        let msg = invalid(json!({ "name": "git", "comands": [], "commands": [] }));
        assert!(
            msg.starts_with("unknown key \"comands\" in tool \"git\""),
            "{msg}"
        );
    }

    #[test]
    fn commands_must_be_present_non_empty_and_unique() {
        assert!(invalid(json!({ "name": "git" })).contains("commands is required"));
        assert!(
            invalid(json!({ "name": "git", "commands": [] }))
                .contains("commands must be a non-empty array of commands, got []")
        );
        let msg = invalid(json!({ "name": "git", "commands": [
            { "name": "a", "program": ["x"] }, { "name": "b", "program": ["y"] },
            { "name": "a", "program": ["z"] },
        ] }));
        assert!(msg.contains("\"a\" is used by commands 0 and 2"), "{msg}");
        let msg = invalid(json!({ "name": "git", "commands": [{ "name": "", "program": ["x"] }] }));
        assert!(
            msg.starts_with("tool \"git\" command 0: name must match"),
            "{msg}"
        );
        let msg = invalid(json!({ "name": "git", "commands": [{ "program": ["x"] }] }));
        assert_eq!(msg, "tool \"git\" command 0: name is required");
        let msg = invalid(json!({ "name": "git", "commands": ["stage"] }));
        assert_eq!(
            msg,
            "tool \"git\" command 0 must be an object, got \"stage\""
        );
    }

    #[test]
    fn program_must_be_a_non_empty_string_array() {
        let msg = invalid(json!({ "name": "git", "commands": [{ "name": "a" }] }));
        assert!(
            msg.starts_with("tool \"git\" command 0 (\"a\"): program is required"),
            "{msg}"
        );
        for (program, want) in [
            (
                json!([]),
                "program must be a non-empty array of strings (argv), got []",
            ),
            (
                json!("git add"),
                "program must be a non-empty array of strings (argv), got \"git add\"",
            ),
            (json!(["git", 3]), "program[1] must be a string, got 3"),
            (
                json!([""]),
                "program[0] (the program to run) must not be empty",
            ),
            (json!(["a\0b"]), "program[0] must not contain NUL bytes"),
        ] {
            let msg = invalid(
                json!({ "name": "git", "commands": [{ "name": "a", "program": program }] }),
            );
            assert_eq!(msg, format!("tool \"git\" command 0 (\"a\"): {want}"));
        }
    }

    #[test]
    fn timings_are_integers_in_range() {
        for (extra, want) in [
            (
                json!({ "settleMs": -1 }),
                "settleMs must be an integer between 0 and 60000 (milliseconds), got -1",
            ),
            (
                json!({ "settleMs": 1.5 }),
                "settleMs must be an integer between 0 and 60000 (milliseconds), got 1.5",
            ),
            (
                json!({ "settleMs": 60001 }),
                "settleMs must be an integer between 0 and 60000 (milliseconds), got 60001",
            ),
            (
                json!({ "settleMs": "100" }),
                "settleMs must be an integer between 0 and 60000 (milliseconds), got \"100\"",
            ),
            (
                json!({ "timeoutMs": 0 }),
                "timeoutMs must be an integer between 1 and 86400000 (milliseconds), got 0",
            ),
        ] {
            let msg = invalid(with_command(extra));
            assert_eq!(msg, format!("tool \"git\" command 0 (\"stage\"): {want}"));
        }
        let tool = ToolSpec::from_json(&with_command(
            json!({ "settleMs": 0, "timeoutMs": 86400000 }),
        ))
        .unwrap();
        assert_eq!(tool.commands()[0].settle_ms, 0);
    }

    #[test]
    fn other_field_types_are_checked() {
        let at = "tool \"git\" command 0 (\"stage\")";
        assert_eq!(
            invalid(with_command(json!({ "pty": "yes" }))),
            format!("{at}: pty must be a boolean, got \"yes\"")
        );
        assert_eq!(
            invalid(with_command(json!({ "description": 1 }))),
            format!("{at}: description must be a string, got 1")
        );
        assert_eq!(
            invalid(with_command(json!({ "env": { "A": 1 } }))),
            format!("{at}: env.A must be a string without NUL bytes, got 1")
        );
        assert!(
            invalid(with_command(json!({ "env": { "A=B": "x" } }))).contains("env variable names")
        );
        assert_eq!(
            invalid(with_command(json!({ "env": ["A=1"] }))),
            format!("{at}: env must be an object of strings, got an array")
        );
        let msg = invalid(json!({ "name": "git", "cwd": "", "commands": [] }));
        assert_eq!(msg, "tool \"git\": cwd must not be empty");
    }

    #[test]
    fn args_schema_must_compile_and_describe_an_array() {
        let at = "tool \"git\" command 0 (\"stage\")";
        assert_eq!(
            invalid(with_command(json!({ "argsSchema": true }))),
            format!("{at}: argsSchema must be a JSON schema object for the args array, got true")
        );
        assert_eq!(
            invalid(with_command(json!({ "argsSchema": { "type": "object" } }))),
            format!(
                "{at}: argsSchema must describe an array (args is a list of strings), got type \"object\""
            )
        );
        let msg = invalid(with_command(
            json!({ "argsSchema": { "type": "array", "minItems": -1 } }),
        ));
        assert!(
            msg.starts_with(&format!("{at}: argsSchema is not a valid JSON schema: ")),
            "{msg}"
        );
        let msg = invalid(with_command(
            json!({ "argsSchema": { "$ref": "https://example.com/s.json" } }),
        ));
        assert!(
            msg.starts_with(&format!("{at}: argsSchema is not a valid JSON schema: ")),
            "{msg}"
        );
        assert!(
            ToolSpec::from_json(&with_command(json!({ "argsSchema": {
                "type": ["array"], "items": { "enum": ["--all", "--stat"] }
            } })))
            .is_ok()
        );
    }

    #[test]
    fn show_shortens_values() {
        assert_eq!(show(&json!("a\"b")), "\"a\\\"b\"");
        assert_eq!(
            show(&json!("x".repeat(100))),
            format!("\"{}…\"", "x".repeat(60))
        );
        assert_eq!(show(&json!({ "a": 1 })), "an object");
        assert_eq!(show(&json!(null)), "null");
    }
}
