//! Validating a tool call's input against the tool's schema.

use std::collections::HashMap;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{JsonType, ValidationError, Validator};
use serde_json::{Map, Value};

use super::schema::{ACTIONS, embedded};
use super::spec::{CommandSpec, ToolSpec, show};
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::keys::{KeyModes, encode_input};

/// A valid tool call, ready for the registry to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCall {
    /// Start `command` with `args` appended to its program.
    Spawn {
        /// One of the tool's command names.
        command: String,
        /// Extra arguments (empty when the call had none).
        args: Vec<String>,
    },
    /// Get the current state of handle `id`. The call may carry `full`
    /// (a boolean): it asks for the whole screen rather than a partial view,
    /// which only matters where content becomes text for a model
    /// (`ToolRegistry#respond`); the state is the same either way.
    Fetch {
        /// The handle id.
        id: String,
    },
    /// Type `input` (text with `<key>` tokens, see
    /// [`encode_input`](crate::core::keys::encode_input)) into handle `id`.
    Apply {
        /// The handle id.
        id: String,
        /// The text to encode and write.
        input: String,
    },
    /// Stop handle `id`.
    Abort {
        /// The handle id.
        id: String,
    },
}

impl ToolCall {
    /// The action name: `"spawn"`, `"fetch"`, `"apply"` or `"abort"`.
    pub fn action(&self) -> &'static str {
        match self {
            ToolCall::Spawn { .. } => "spawn",
            ToolCall::Fetch { .. } => "fetch",
            ToolCall::Apply { .. } => "apply",
            ToolCall::Abort { .. } => "abort",
        }
    }

    /// The handle id the call names (`None` for `spawn`).
    pub fn id(&self) -> Option<&str> {
        match self {
            ToolCall::Spawn { .. } => None,
            ToolCall::Fetch { id } | ToolCall::Apply { id, .. } | ToolCall::Abort { id } => {
                Some(id)
            }
        }
    }
}

/// The compiled validators of one tool: the whole `oneOf` schema, each
/// action's variant, and each command's `argsSchema`.
pub(super) struct Validators {
    full: Validator,
    variants: HashMap<&'static str, Validator>,
    args: HashMap<String, Validator>,
}

fn compile(schema: &Value, what: &str) -> Result<Validator> {
    jsonschema::validator_for(schema)
        .map_err(|e| Error::invalid_arg(format!("{what} is not a valid JSON schema: {e}")))
}

impl Validators {
    pub(super) fn build(schema: &Value, commands: &[CommandSpec]) -> Result<Validators> {
        let full = compile(schema, "the generated tool schema")?;
        let mut variants = HashMap::new();
        for variant in schema["oneOf"].as_array().into_iter().flatten() {
            let action = variant["properties"]["action"]["const"]
                .as_str()
                .unwrap_or_default();
            if let Some(action) = ACTIONS.iter().find(|a| **a == action) {
                variants.insert(*action, compile(variant, "a generated action schema")?);
            }
        }
        let mut args = HashMap::new();
        for command in commands {
            if let Some(schema) = &command.args_schema {
                let what = format!("argsSchema of command \"{}\"", command.name);
                args.insert(
                    command.name.clone(),
                    compile(&embedded(schema, &command.name), &what)?,
                );
            }
        }
        Ok(Validators {
            full,
            variants,
            args,
        })
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// How many validator errors one message lists at most.
const MAX_LISTED: usize = 3;

impl ToolSpec {
    /// Checks a call's input and returns it as a [`ToolCall`].
    ///
    /// The input must match the `oneOf` variant of its action (see
    /// [`ToolSpec::schema`]) and, for `spawn`, the command's `argsSchema`
    /// (absent `args` are checked as `[]`). A field whose value is `null`
    /// counts as absent, because a model given the flat OpenAI schema fills
    /// the fields its action does not use with `null`. `apply` input must
    /// use valid key tokens (`<ctrl+1>` is rejected here, not at write
    /// time).
    ///
    /// Fails with `ERR_INVALID_INPUT` and a message naming the field, e.g.
    /// `input.command must be one of "stage", "rebase", "log", got "push"`
    /// or `input.id is required for action "fetch"`. Whether a command
    /// accepts input is the registry's check (it knows the handle's command):
    /// see [`CommandSpec::accepts_input`].
    pub fn validate_call(&self, input: &Value) -> Result<ToolCall> {
        let Value::Object(raw) = input else {
            return Err(invalid(format!(
                "input must be an object with an \"action\", got {}",
                show(input)
            )));
        };
        let obj: Map<String, Value> = raw
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let actions: Vec<&str> = ACTIONS
            .iter()
            .copied()
            .filter(|a| self.validators.variants.contains_key(a))
            .collect();
        let one_of = quoted_list(&actions);
        let action = match obj.get("action") {
            None => {
                return Err(invalid(format!(
                    "input.action is required: one of {one_of}"
                )));
            }
            Some(Value::String(a)) => a.as_str(),
            Some(other) => {
                return Err(invalid(format!(
                    "input.action must be one of {one_of}, got {}",
                    show(other)
                )));
            }
        };
        let Some((action, validator)) = self.validators.variants.get_key_value(action) else {
            if action == "apply" {
                return Err(invalid(format!(
                    "input.action \"apply\" is not available: no command of tool \"{}\" accepts \
                     input (use one of {one_of})",
                    self.name()
                )));
            }
            return Err(invalid(format!(
                "input.action must be one of {one_of}, got {}",
                show(&obj["action"])
            )));
        };
        let instance = Value::Object(obj);
        let screens = self.commands().iter().any(|c| c.pty);
        // The `argsSchema` rules (under the spawn variant's `allOf`) are
        // checked below, once the command is known, so their messages can
        // name the command and absent `args` count as `[]`.
        let mut messages: Vec<(u8, String)> = validator
            .iter_errors(&instance)
            .filter(|e| !e.evaluation_path().as_str().starts_with("/allOf"))
            .flat_map(|e| describe(&e, "input", Some(action), screens))
            .collect();
        if !messages.is_empty() {
            return Err(invalid(join(&mut messages)));
        }
        let obj = instance.as_object().expect("an object");
        let string = |key: &str| {
            obj.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let call = match *action {
            "spawn" => {
                let command = string("command");
                let args = obj
                    .get("args")
                    .cloned()
                    .unwrap_or_else(|| Value::Array(Vec::new()));
                if let Some(validator) = self.validators.args.get(&command) {
                    let mut messages: Vec<(u8, String)> = validator
                        .iter_errors(&args)
                        .flat_map(|e| describe(&e, "input.args", None, screens))
                        .collect();
                    if !messages.is_empty() {
                        return Err(invalid(format!(
                            "{} (argsSchema of command \"{command}\")",
                            join(&mut messages)
                        )));
                    }
                }
                // The action's variant passed; the whole schema must agree.
                if let Some(e) = self.validators.full.iter_errors(&instance).next() {
                    return Err(invalid(format!("input: {e}")));
                }
                let args = args
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                ToolCall::Spawn { command, args }
            }
            _ if !self.validators.full.is_valid(&instance) => {
                // Unreachable while each action's variant is checked above.
                return Err(invalid("input does not match the tool schema"));
            }
            "fetch" => ToolCall::Fetch { id: string("id") },
            "apply" => {
                let input = string("input");
                if let Err(e) = encode_input(&input, KeyModes::default()) {
                    let why = e.message.strip_prefix("input: ").unwrap_or(&e.message);
                    return Err(invalid(format!("input.input: {why}")));
                }
                ToolCall::Apply {
                    id: string("id"),
                    input,
                }
            }
            _ => ToolCall::Abort { id: string("id") },
        };
        Ok(call)
    }
}

/// Sorts by priority, drops duplicates and joins the first few messages.
fn join(messages: &mut [(u8, String)]) -> String {
    messages.sort_by_key(|(priority, _)| *priority);
    let mut seen: Vec<&str> = Vec::new();
    for (_, m) in messages.iter() {
        if !seen.contains(&m.as_str()) && seen.len() < MAX_LISTED {
            seen.push(m);
        }
    }
    seen.join("; ")
}

fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("\"{}\"", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `input.args[1]`: a JSON pointer as a JS property path under `base`.
fn js_path(base: &str, pointer: &jsonschema::paths::Location) -> String {
    let mut out = base.to_string();
    for segment in pointer.segments() {
        match segment {
            LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
            LocationSegment::Property(p) => push_property(&mut out, &p),
        }
    }
    out
}

fn push_property(out: &mut String, p: &str) {
    let ident = p
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        out.push('.');
        out.push_str(p);
    } else {
        out.push_str(&format!("[{}]", Value::String(p.to_string())));
    }
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Array => "an array",
        JsonType::Boolean => "a boolean",
        JsonType::Integer => "an integer",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Object => "an object",
        JsonType::String => "a string",
    }
}

/// Messages for one validator error, with a sort priority (missing and
/// unexpected fields first). `action` is set for the call's own fields;
/// `screens` when some command runs in a terminal (fetch then takes `full`).
fn describe(
    e: &ValidationError<'_>,
    base: &str,
    action: Option<&str>,
    screens: bool,
) -> Vec<(u8, String)> {
    let path = js_path(base, e.instance_path());
    let at_root = e.instance_path().is_empty();
    let for_action = match action {
        Some(a) if at_root => format!(" for action \"{a}\""),
        _ => String::new(),
    };
    let got = show(e.instance());
    let one = |priority: u8, message: String| vec![(priority, message)];
    match e.kind() {
        ValidationErrorKind::Required { property } => {
            let mut field = path.clone();
            push_property(&mut field, property.as_str().unwrap_or_default());
            one(0, format!("{field} is required{for_action}"))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed = match action {
                Some("spawn") if at_root => " (it takes action, command, args)",
                Some("apply") if at_root => " (it takes action, id, input)",
                Some("fetch") if at_root && screens => " (it takes action, id, full)",
                Some(_) if at_root => " (it takes action, id)",
                _ => "",
            };
            unexpected
                .iter()
                .map(|key| {
                    let mut field = path.clone();
                    push_property(&mut field, key);
                    (1, format!("{field} is not allowed{for_action}{allowed}"))
                })
                .collect()
        }
        ValidationErrorKind::Enum { options } => {
            let options = options
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_else(|| options.to_string());
            one(2, format!("{path} must be one of {options}, got {got}"))
        }
        ValidationErrorKind::Constant { expected_value } => {
            one(2, format!("{path} must be {expected_value}, got {got}"))
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => type_name(*t).to_string(),
                TypeKind::Multiple(set) => {
                    set.iter().map(type_name).collect::<Vec<_>>().join(" or ")
                }
            };
            one(2, format!("{path} must be {expected}, got {got}"))
        }
        ValidationErrorKind::MinItems { limit } => one(
            2,
            format!(
                "{path} must have at least {limit} item{}, got {got}",
                plural(*limit)
            ),
        ),
        ValidationErrorKind::MaxItems { limit } => one(
            2,
            format!("{path} must have at most {limit} item{}", plural(*limit)),
        ),
        ValidationErrorKind::MinLength { limit } => one(
            2,
            format!(
                "{path} must be at least {limit} character{} long",
                plural(*limit)
            ),
        ),
        ValidationErrorKind::MaxLength { limit } => one(
            2,
            format!(
                "{path} must be at most {limit} character{} long",
                plural(*limit)
            ),
        ),
        ValidationErrorKind::Pattern { pattern } => one(
            2,
            format!(
                "{path} must match the pattern {}, got {got}",
                Value::String(pattern.clone())
            ),
        ),
        ValidationErrorKind::FalseSchema => one(2, format!("{path} is not allowed")),
        // A command's own schema can say anything; the validator's words, placed.
        _ => one(3, format!("{path}: {e}")),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn git() -> ToolSpec {
        ToolSpec::from_json(&json!({
            "name": "git",
            "commands": [
                { "name": "stage", "program": ["git", "add", "--patch"] },
                { "name": "rebase", "program": ["git", "rebase", "-i"] },
                { "name": "log", "program": ["git", "log"], "pty": false,
                  "argsSchema": { "type": "array", "maxItems": 2,
                                  "items": { "$ref": "#/$defs/flag" },
                                  "$defs": { "flag": { "type": "string", "pattern": "^-" } } } },
            ],
        }))
        .unwrap()
    }

    fn rejects(tool: &ToolSpec, input: Value) -> String {
        let err = tool.validate_call(&input).expect_err(&input.to_string());
        assert_eq!(err.code, ErrorCode::InvalidInput, "{}", err.message);
        err.message
    }

    #[test]
    fn fetch_takes_full_only_for_terminal_commands() {
        let pipes = ToolSpec::from_json(&json!({
            "name": "logs",
            "commands": [{ "name": "tail", "program": ["tail"], "pty": false }],
        }))
        .unwrap();
        assert_eq!(
            rejects(
                &pipes,
                json!({ "action": "fetch", "id": "h1", "full": true })
            ),
            "input.full is not allowed for action \"fetch\" (it takes action, id)"
        );
        assert_eq!(
            git()
                .validate_call(&json!({ "action": "fetch", "id": "h1", "full": false }))
                .unwrap(),
            ToolCall::Fetch { id: "h1".into() }
        );
    }

    #[test]
    fn valid_calls_become_tool_calls() {
        let tool = git();
        let ok = |input: Value| tool.validate_call(&input).unwrap();
        assert_eq!(
            ok(json!({ "action": "spawn", "command": "stage" })),
            ToolCall::Spawn {
                command: "stage".into(),
                args: vec![]
            }
        );
        assert_eq!(
            ok(json!({ "action": "spawn", "command": "rebase", "args": ["HEAD~3"] })),
            ToolCall::Spawn {
                command: "rebase".into(),
                args: vec!["HEAD~3".into()]
            }
        );
        assert_eq!(
            ok(json!({ "action": "spawn", "command": "log", "args": ["-n", "--stat"] })),
            ToolCall::Spawn {
                command: "log".into(),
                args: vec!["-n".into(), "--stat".into()]
            }
        );
        assert_eq!(
            ok(json!({ "action": "fetch", "id": "h1" })),
            ToolCall::Fetch { id: "h1".into() }
        );
        assert_eq!(
            ok(json!({ "action": "fetch", "id": "h1", "full": true })),
            ToolCall::Fetch { id: "h1".into() }
        );
        assert_eq!(
            ok(json!({ "action": "apply", "id": "h1", "input": "y<enter>" })),
            ToolCall::Apply {
                id: "h1".into(),
                input: "y<enter>".into()
            }
        );
        let abort = ok(json!({ "action": "abort", "id": "h1" }));
        assert_eq!(abort, ToolCall::Abort { id: "h1".into() });
        assert_eq!((abort.action(), abort.id()), ("abort", Some("h1")));
    }

    #[test]
    fn nulls_count_as_absent() {
        let tool = git();
        assert_eq!(
            tool.validate_call(&json!({
                "action": "fetch", "id": "h1", "command": null, "args": null, "input": null
            }))
            .unwrap(),
            ToolCall::Fetch { id: "h1".into() }
        );
        assert_eq!(
            tool.validate_call(&json!({
                "action": "spawn", "command": "stage", "args": null, "id": null, "input": null
            }))
            .unwrap(),
            ToolCall::Spawn {
                command: "stage".into(),
                args: vec![]
            }
        );
    }

    #[test]
    fn missing_or_unknown_action() {
        let tool = git();
        let all = "\"spawn\", \"fetch\", \"apply\", \"abort\"";
        assert_eq!(
            rejects(&tool, json!({})),
            format!("input.action is required: one of {all}")
        );
        assert_eq!(
            rejects(&tool, json!({ "action": null, "id": "x" })),
            format!("input.action is required: one of {all}")
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "run" })),
            format!("input.action must be one of {all}, got \"run\"")
        );
        assert_eq!(
            rejects(&tool, json!({ "action": 1 })),
            format!("input.action must be one of {all}, got 1")
        );
        assert_eq!(
            rejects(&tool, json!("spawn")),
            "input must be an object with an \"action\", got \"spawn\""
        );
        assert_eq!(
            rejects(&tool, json!(["spawn"])),
            "input must be an object with an \"action\", got an array"
        );
    }

    #[test]
    fn wrong_or_missing_fields_are_named() {
        let tool = git();
        assert_eq!(
            rejects(&tool, json!({ "action": "spawn", "command": "push" })),
            "input.command must be one of \"stage\", \"rebase\", \"log\", got \"push\""
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "spawn" })),
            "input.command is required for action \"spawn\""
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "fetch" })),
            "input.id is required for action \"fetch\""
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "apply", "id": "h1" })),
            "input.input is required for action \"apply\""
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "stage", "args": ["a", 3] })
            ),
            "input.args[1] must be a string, got 3"
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "stage", "args": "-p" })
            ),
            "input.args must be an array, got \"-p\""
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "fetch", "id": 7 })),
            "input.id must be a string, got 7"
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "fetch", "id": "h1", "full": "yes" })
            ),
            "input.full must be a boolean, got \"yes\""
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "apply", "id": "h1", "input": "y", "full": true })
            ),
            "input.full is not allowed for action \"apply\" (it takes action, id, input)"
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "fetch", "id": "h1", "input": "y" })
            ),
            "input.input is not allowed for action \"fetch\" (it takes action, id, full)"
        );
        assert_eq!(
            rejects(&tool, json!({ "action": "abort", "command": "stage" })),
            "input.id is required for action \"abort\"; input.command is not allowed for action \
             \"abort\" (it takes action, id)"
        );
    }

    #[test]
    fn args_schema_is_enforced_per_command() {
        let tool = git();
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "log", "args": ["-a", "-b", "-c"] })
            ),
            "input.args must have at most 2 items (argsSchema of command \"log\")"
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "log", "args": ["main"] })
            ),
            "input.args[0] must match the pattern \"^-\", got \"main\" (argsSchema of command \"log\")"
        );
        // Other commands are not bound by it.
        assert!(
            tool.validate_call(&json!({ "action": "spawn", "command": "stage", "args": ["main"] }))
                .is_ok()
        );
    }

    #[test]
    fn args_schemas_keep_their_own_draft_and_references() {
        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array",
            "items": { "$ref": "#/definitions/flag" },
            "definitions": { "flag": { "type": "string", "pattern": "^-" } },
        });
        let same_id = json!({ "$id": "https://example.com/args", "type": "array", "maxItems": 1 });
        let tool = ToolSpec::from_json(&json!({ "name": "t", "commands": [
            { "name": "a", "program": ["x"], "argsSchema": draft7 },
            { "name": "b", "program": ["x"], "argsSchema": same_id },
            { "name": "c", "program": ["x"], "argsSchema": same_id },
        ] }))
        .unwrap();
        assert!(
            tool.validate_call(&json!({ "action": "spawn", "command": "a", "args": ["-x"] }))
                .is_ok()
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "a", "args": ["x"] })
            ),
            "input.args[0] must match the pattern \"^-\", got \"x\" (argsSchema of command \"a\")"
        );
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "spawn", "command": "c", "args": ["1", "2"] })
            ),
            "input.args must have at most 1 item (argsSchema of command \"c\")"
        );
    }

    #[test]
    fn missing_args_are_checked_as_empty() {
        let tool = ToolSpec::from_json(&json!({ "name": "t", "commands": [
            { "name": "open", "program": ["vim"], "argsSchema": { "type": "array", "minItems": 1 } },
        ] }))
        .unwrap();
        assert_eq!(
            rejects(&tool, json!({ "action": "spawn", "command": "open" })),
            "input.args must have at least 1 item, got [] (argsSchema of command \"open\")"
        );
    }

    #[test]
    fn apply_is_unavailable_without_input_commands() {
        let tool = ToolSpec::from_json(&json!({ "name": "build", "commands": [
            { "name": "check", "program": ["cargo", "check"], "pty": false },
        ] }))
        .unwrap();
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "apply", "id": "h1", "input": "x" })
            ),
            "input.action \"apply\" is not available: no command of tool \"build\" accepts input \
             (use one of \"spawn\", \"fetch\", \"abort\")"
        );
        assert_eq!(
            rejects(&tool, json!({})),
            "input.action is required: one of \"spawn\", \"fetch\", \"abort\""
        );
    }

    #[test]
    fn apply_input_key_tokens_are_checked() {
        let tool = git();
        assert_eq!(
            rejects(
                &tool,
                json!({ "action": "apply", "id": "h1", "input": "<ctrl+1>" })
            ),
            "input.input: key \"<ctrl+1>\": ctrl cannot be combined with \"1\" (xterm has no \
             encoding for it)"
        );
        assert!(
            tool.validate_call(&json!({ "action": "apply", "id": "h", "input": "<div>" }))
                .is_ok()
        );
    }

    #[test]
    fn paths_render_as_js() {
        let loc = jsonschema::paths::Location::new()
            .join("args")
            .join(1usize)
            .join("a b");
        assert_eq!(js_path("input", &loc), "input.args[1][\"a b\"]");
    }
}
