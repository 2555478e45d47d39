//! The tool's input schema, and the tool definitions providers accept.
//!
//! [`ToolSpec::schema`] is the canonical form from DESIGN.md: a top-level
//! `oneOf` with one variant per action (`spawn`, `fetch`, `apply` when some
//! command accepts input, `abort`), each `additionalProperties: false` with
//! its `required` list. Per-command `argsSchema`s live inside the single
//! `spawn` variant as `allOf: [{ if: { command: const X }, then: { args: … } }]`,
//! so a wrong command still gets one plain "must be one of" error instead of
//! an opaque "not valid under any of the oneOf variants".
//!
//! Neither provider accepts that shape as a tool's input schema:
//!
//! - Anthropic answers `400 invalid_request_error: "tools.N.custom.input_schema:
//!   input_schema does not support oneOf, allOf, or anyOf at the top level"`
//!   (reported in <https://github.com/anthropics/claude-code/issues/5973>,
//!   <https://github.com/MemPalace/mempalace/issues/1711> and others).
//! - OpenAI answers `"Invalid schema for function 'x': schema must have type
//!   'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top
//!   level"` (<https://github.com/nspady/google-calendar-mcp/issues/39>,
//!   <https://github.com/langchain-ai/langchainjs/issues/9804>).
//!
//! So [`ToolSpec::definition`] emits a flat object instead: an `action` enum
//! plus every other field, optional, each description saying which action
//! uses it. For OpenAI it is the strict form — every field `required` and
//! nullable, `additionalProperties: false`, `"strict": true` — because the
//! function-calling guide says that when `strict` is omitted "Responses
//! requests will normalize your schema into strict mode (… marking all
//! fields as required), which can make previously optional fields
//! mandatory"; a non-nullable `id` made mandatory would force a bogus id
//! into every `spawn`. Optional fields are nullable as the guide says ("You
//! can denote optional fields by adding `null` as a `type` option"), and the
//! nullable `command` enum is an `anyOf` with `{"type": "null"}`, which strict
//! mode supports below the top level. Tool names must match
//! `^[a-zA-Z0-9_-]{1,64}$` for both providers (Anthropic API reference,
//! `Tool.name`; OpenAI: "Must be a-z, A-Z, 0-9, or contain underscores and
//! dashes, with a maximum length of 64"), which [`ToolSpec::from_json`]
//! enforces.
//!
//! The flat schemas accept more than the `oneOf` (a `fetch` with an `input`),
//! so [`ToolSpec::validate_call`] never trusts them: it drops `null` fields
//! and checks the call against the `oneOf` variant of its action. A call is
//! accepted or rejected the same way whichever schema the model saw.

use serde_json::{Map, Value, json};

use super::spec::{CommandSpec, ToolSpec};
use crate::core::error::{Error, Result};

/// The actions in protocol order.
pub(super) const ACTIONS: [&str; 4] = ["spawn", "fetch", "apply", "abort"];

/// How [`ToolSpec::definition`] shapes a tool for a provider's API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefinitionFormat {
    /// Anthropic Messages API: `{ name, description, input_schema }`.
    #[default]
    Anthropic,
    /// OpenAI Chat Completions: `{ type: "function", function: { name,
    /// description, parameters, strict: true } }`.
    OpenAi,
    /// OpenAI Responses API: `{ type: "function", name, description,
    /// parameters, strict: true }` (the same strict schema as `OpenAi`).
    OpenAiResponses,
    /// Model Context Protocol `tools/list`: `{ name, description,
    /// inputSchema }` with the flat schema (MCP clients hand it on to
    /// providers that reject a top-level `oneOf`).
    Mcp,
}

impl DefinitionFormat {
    /// Parses `"anthropic"`, `"openai"`, `"openai-responses"` or `"mcp"`;
    /// anything else is `ERR_INVALID_ARG`.
    pub fn parse(name: &str) -> Result<DefinitionFormat> {
        match name {
            "anthropic" => Ok(DefinitionFormat::Anthropic),
            "openai" => Ok(DefinitionFormat::OpenAi),
            "openai-responses" => Ok(DefinitionFormat::OpenAiResponses),
            "mcp" => Ok(DefinitionFormat::Mcp),
            other => Err(Error::invalid_arg(format!(
                "format must be \"anthropic\", \"openai\", \"openai-responses\" or \"mcp\", got {}",
                Value::String(other.to_string())
            ))),
        }
    }
}

impl std::str::FromStr for DefinitionFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        DefinitionFormat::parse(s)
    }
}

/// The definitions of several tools in one provider's format.
pub fn definitions<'a>(
    tools: impl IntoIterator<Item = &'a ToolSpec>,
    format: DefinitionFormat,
) -> Vec<Value> {
    tools
        .into_iter()
        .map(|tool| tool.definition(format))
        .collect()
}

const INPUT_DESCRIPTION: &str = "Text to type into the program. Named keys go in angle brackets: \
     <enter>, <tab>, <esc>, <backspace>, <delete>, <up>, <down>, <left>, <right>, <home>, <end>, \
     <pageup>, <pagedown>, <space>, <f1>…<f12>, and with modifiers <ctrl+c>, <ctrl+d>, <alt+x>, \
     <shift+tab>, <ctrl+up>. Enter is not added for you: end a line with <enter> (\"y<enter>\"). \
     Anything else in angle brackets is typed as is; write <lt> for a literal '<' before a key \
     name.";

const ID_DESCRIPTION: &str = "the handle id that spawn returned.";

const FULL_DESCRIPTION: &str = "set to true to get the whole screen. A screen that changed only in part since the \
     last result for the same id may come as a partial view (its first line says so, and names \
     the rows that scrolled, moved or are as in an earlier numbered view): then only the rows \
     with new text, each after its row number (12│text), or a row's new words written over it \
     from a character (23:62│40,5); full: true sends every row.";

impl ToolSpec {
    /// The canonical input schema: `{ "type": "object", "oneOf": [spawn,
    /// fetch, apply?, abort] }` (see the module docs).
    pub fn schema(&self) -> Value {
        oneof_schema(self.commands())
    }

    /// The flat input schema for providers that reject a top-level `oneOf`.
    ///
    /// With `nullable` (OpenAI strict mode) every field is required and
    /// accepts `null`; without, only `action` is required.
    pub fn flat_schema(&self, nullable: bool) -> Value {
        let commands = self.commands();
        let input = self.accepts_input();
        // `full` (fetch) asks for a whole screen: only for terminal commands.
        let screens = commands.iter().any(|c| c.pty);
        let actions: Vec<&str> = ACTIONS
            .iter()
            .copied()
            .filter(|a| *a != "apply" || input)
            .collect();
        let mut action_doc = String::from(
            "What to do. spawn: start a command (uses command, args) and get its handle id; \
             fetch: get a running command's current state (uses id); ",
        );
        if input {
            action_doc.push_str("apply: type input into it (uses id, input); ");
        }
        action_doc.push_str("abort: stop it (uses id).");
        let unused = if nullable {
            " Use null for other actions."
        } else {
            ""
        };

        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        let command_doc = format!("spawn only: {}{unused}", command_list(commands));
        let args_doc = format!("spawn only: {}{unused}", args_description(commands));
        let id_doc = format!(
            "{}: {ID_DESCRIPTION}{unused}",
            if input {
                "fetch, apply and abort"
            } else {
                "fetch and abort"
            }
        );
        let string_array = json!({ "type": "array", "items": { "type": "string" } });

        let mut props = Map::new();
        props.insert(
            "action".into(),
            json!({ "type": "string", "enum": actions, "description": action_doc }),
        );
        if nullable {
            props.insert(
                "command".into(),
                json!({
                    "anyOf": [{ "type": "string", "enum": names }, { "type": "null" }],
                    "description": command_doc,
                }),
            );
            props.insert(
                "args".into(),
                json!({
                    "type": ["array", "null"],
                    "items": { "type": "string" },
                    "description": args_doc,
                }),
            );
            props.insert(
                "id".into(),
                json!({ "type": ["string", "null"], "description": id_doc }),
            );
            if screens {
                props.insert(
                    "full".into(),
                    json!({
                        "type": ["boolean", "null"],
                        "description": format!("fetch only: {FULL_DESCRIPTION}{unused}"),
                    }),
                );
            }
            if input {
                props.insert(
                    "input".into(),
                    json!({
                        "type": ["string", "null"],
                        "description": format!("apply only: {INPUT_DESCRIPTION}{unused}"),
                    }),
                );
            }
        } else {
            props.insert(
                "command".into(),
                json!({ "type": "string", "enum": names, "description": command_doc }),
            );
            let mut args = string_array;
            args["description"] = Value::String(args_doc);
            props.insert("args".into(), args);
            props.insert(
                "id".into(),
                json!({ "type": "string", "description": id_doc }),
            );
            if screens {
                props.insert(
                    "full".into(),
                    json!({
                        "type": "boolean",
                        "description": format!("fetch only: {FULL_DESCRIPTION}"),
                    }),
                );
            }
            if input {
                props.insert(
                    "input".into(),
                    json!({
                        "type": "string",
                        "description": format!("apply only: {INPUT_DESCRIPTION}"),
                    }),
                );
            }
        }
        let required: Vec<&String> = if nullable {
            props.keys().collect()
        } else {
            vec![props.keys().next().unwrap()]
        };
        let required = json!(required);
        json!({
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": false,
        })
    }

    /// The tool description the model reads: the tool's own description,
    /// the protocol in two sentences, and the commands.
    pub fn model_description(&self) -> String {
        let mut out = String::new();
        if let Some(desc) = self.description().filter(|d| !d.trim().is_empty()) {
            out.push_str(desc.trim());
            out.push_str("\n\n");
        }
        if self.accepts_input() {
            out.push_str(
                "Runs the commands below as interactive programs: action \"spawn\" starts one \
                 and returns its handle id with the program's screen, \"apply\" types input \
                 into it (keys such as <enter>, <up> or <ctrl+c> in angle brackets), \"fetch\" \
                 shows its current screen and \"abort\" stops it. ",
            );
        } else {
            out.push_str(
                "Runs the commands below: action \"spawn\" starts one and returns its handle id \
                 with its output so far, \"fetch\" shows its current output and \"abort\" stops \
                 it. ",
            );
        }
        out.push_str(
            "Each result is either running (with the current content) or stopped (with the \
             final content, or an error with the exit code), so keep using the id until the \
             command stops.\n\nCommands:",
        );
        for command in self.commands() {
            out.push_str("\n- ");
            out.push_str(&command.name);
            out.push_str(": ");
            out.push_str(&command_summary(command));
        }
        out
    }

    /// The tool as `format`'s API expects it (see the module docs for why
    /// the input schema is flat).
    pub fn definition(&self, format: DefinitionFormat) -> Value {
        match format {
            DefinitionFormat::Anthropic => json!({
                "name": self.name(),
                "description": self.model_description(),
                "input_schema": self.flat_schema(false),
            }),
            DefinitionFormat::OpenAi => json!({
                "type": "function",
                "function": {
                    "name": self.name(),
                    "description": self.model_description(),
                    "parameters": self.flat_schema(true),
                    "strict": true,
                },
            }),
            DefinitionFormat::OpenAiResponses => json!({
                "type": "function",
                "name": self.name(),
                "description": self.model_description(),
                "parameters": self.flat_schema(true),
                "strict": true,
            }),
            DefinitionFormat::Mcp => json!({
                "name": self.name(),
                "description": self.model_description(),
                "inputSchema": self.flat_schema(false),
            }),
        }
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// What a command is, for the model: its description (or its argv) and
/// whether it takes input.
fn command_summary(command: &CommandSpec) -> String {
    let what = match command.description.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => d.trim_end_matches('.').to_string(),
        _ => format!("runs `{}`", command.program.join(" ")),
    };
    let input = if command.accepts_input() {
        "takes input"
    } else {
        "output only, no input"
    };
    format!("{what}; {input}.")
}

fn command_list(commands: &[CommandSpec]) -> String {
    let mut out = String::from("the command to start.");
    for command in commands {
        out.push_str(&format!(" {}: {}", command.name, command_summary(command)));
    }
    out
}

/// The `args` description: what args are, plus each command's constraints.
fn args_description(commands: &[CommandSpec]) -> String {
    let mut out =
        String::from("extra command-line arguments appended to the command (default none).");
    for command in commands {
        let Some(schema) = &command.args_schema else {
            continue;
        };
        let rule = match schema.get("description").and_then(Value::as_str) {
            Some(d) => d.to_string(),
            None => {
                let mut compact = schema.to_string();
                if compact.chars().count() > 300 {
                    compact = compact.chars().take(300).collect::<String>() + "…";
                }
                format!("must match the JSON schema {compact}")
            }
        };
        out.push_str(&format!(" For {}: {rule}", command.name));
        if !out.ends_with('.') {
            out.push('.');
        }
    }
    out
}

/// The canonical `oneOf` schema for these commands.
pub(super) fn oneof_schema(commands: &[CommandSpec]) -> Value {
    let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
    let mut variants = vec![spawn_variant(commands, &names)];
    let mut fetch = id_variant(
        "fetch",
        "Get the current state of a command: what it shows while it runs, its final content \
         once it stopped.",
    );
    if commands.iter().any(|c| c.pty) {
        fetch["properties"]["full"] = json!({
            "type": "boolean",
            "description": capitalized(FULL_DESCRIPTION),
        });
    }
    variants.push(fetch);
    if commands.iter().any(CommandSpec::accepts_input) {
        variants.push(json!({
            "type": "object",
            "description": "Type input into a running command; returns what it shows once it \
                            settles.",
            "properties": {
                "action": { "const": "apply" },
                "id": { "type": "string", "description": capitalized(ID_DESCRIPTION) },
                "input": { "type": "string", "description": INPUT_DESCRIPTION },
            },
            "required": ["action", "id", "input"],
            "additionalProperties": false,
        }));
    }
    variants.push(id_variant(
        "abort",
        "Stop a running command; returns what it showed last.",
    ));
    json!({ "type": "object", "oneOf": variants })
}

fn id_variant(action: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": {
            "action": { "const": action },
            "id": { "type": "string", "description": capitalized(ID_DESCRIPTION) },
        },
        "required": ["action", "id"],
        "additionalProperties": false,
    })
}

fn spawn_variant(commands: &[CommandSpec], names: &[&str]) -> Value {
    let mut variant = json!({
        "type": "object",
        "description": "Start a command; returns its handle id and what it shows once it settles.",
        "properties": {
            "action": { "const": "spawn" },
            "command": {
                "type": "string",
                "enum": names,
                "description": capitalized(&command_list(commands)),
            },
            "args": {
                "type": "array",
                "items": { "type": "string" },
                "description": capitalized(&args_description(commands)),
            },
        },
        "required": ["action", "command"],
        "additionalProperties": false,
    });
    let rules: Vec<Value> = commands
        .iter()
        .filter_map(|c| {
            let schema = c.args_schema.as_ref()?;
            Some(json!({
                "if": { "properties": { "command": { "const": c.name } }, "required": ["command"] },
                "then": { "properties": { "args": embedded(schema, &c.name) } },
            }))
        })
        .collect();
    if !rules.is_empty() {
        variant["allOf"] = Value::Array(rules);
    }
    variant
}

/// A command's `argsSchema` made its own schema resource, so its `#…`
/// references keep resolving against itself once embedded.
pub(super) fn embedded(schema: &Value, command: &str) -> Value {
    let mut schema = schema.clone();
    if let Some(map) = schema.as_object_mut() {
        if !map.contains_key("$id") && !map.contains_key("id") {
            map.insert("$id".into(), Value::String(args_schema_id(command)));
        }
    }
    schema
}

/// The `$id` given to an embedded `argsSchema` without one.
pub(super) fn args_schema_id(command: &str) -> String {
    format!("urn:ptypilot:args:{command}")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;
    use crate::core::error::ErrorCode;
    use crate::core::tools::ToolCall;

    /// The tool of the RFD: stage and rebase in a pty with input, log
    /// through pipes without.
    fn git() -> ToolSpec {
        ToolSpec::from_json(&json!({
            "name": "git",
            "description": "Work with the git repository in the current directory.",
            "commands": [
                { "name": "stage", "description": "Interactive staging (git add --patch)",
                  "program": ["git", "add", "--patch"] },
                { "name": "rebase", "description": "Interactive rebase (git rebase -i)",
                  "program": ["git", "rebase", "-i"] },
                { "name": "log", "description": "Recent commits (git log --oneline -20)",
                  "program": ["git", "log", "--oneline", "-20"], "pty": false },
            ],
        }))
        .unwrap()
    }

    /// A tool none of whose commands accepts input.
    fn cargo() -> ToolSpec {
        ToolSpec::from_json(&json!({
            "name": "cargo",
            "commands": [
                { "name": "check", "program": ["cargo", "check"], "pty": false },
                { "name": "test", "program": ["cargo", "test"], "pty": false,
                  "argsSchema": { "type": "array", "maxItems": 1,
                                  "description": "at most one test name filter" } },
            ],
        }))
        .unwrap()
    }

    /// Compares `value` with `snapshots/<name>.json`; `UPDATE_SNAPSHOTS=1`
    /// rewrites the file (review the diff before committing it).
    fn snapshot(name: &str, value: &Value) {
        let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "src/core/tools/snapshots"]
            .iter()
            .collect::<PathBuf>()
            .join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(value).unwrap() + "\n";
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing {path:?}; run with UPDATE_SNAPSHOTS=1"));
        assert_eq!(
            text, expected,
            "{name} changed; review it and run with UPDATE_SNAPSHOTS=1"
        );
    }

    #[test]
    fn git_schema_snapshots() {
        let tool = git();
        snapshot("git.schema", &tool.schema());
        snapshot(
            "git.anthropic",
            &tool.definition(DefinitionFormat::Anthropic),
        );
        snapshot("git.openai", &tool.definition(DefinitionFormat::OpenAi));
        snapshot("cargo.schema", &cargo().schema());
    }

    fn variant<'a>(schema: &'a Value, action: &str) -> Option<&'a Value> {
        schema["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["properties"]["action"]["const"] == action)
    }

    #[test]
    fn oneof_schema_has_one_closed_variant_per_action() {
        let schema = git().schema();
        assert_eq!(schema["type"], "object");
        let actions: Vec<&str> = schema["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["properties"]["action"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(actions, ["spawn", "fetch", "apply", "abort"]);
        for (action, required) in [
            ("spawn", json!(["action", "command"])),
            ("fetch", json!(["action", "id"])),
            ("apply", json!(["action", "id", "input"])),
            ("abort", json!(["action", "id"])),
        ] {
            let v = variant(&schema, action).unwrap();
            assert_eq!(v["required"], required, "{action}");
            assert_eq!(v["additionalProperties"], false, "{action}");
            assert_eq!(v["type"], "object", "{action}");
            for (name, prop) in v["properties"].as_object().unwrap() {
                assert!(
                    name == "action" || prop["description"].is_string(),
                    "{action}.{name}"
                );
            }
        }
        let spawn = variant(&schema, "spawn").unwrap();
        assert_eq!(
            spawn["properties"]["command"]["enum"],
            json!(["stage", "rebase", "log"])
        );
        assert!(spawn.get("allOf").is_none(), "no argsSchema, no rules");
        let input_doc = variant(&schema, "apply").unwrap()["properties"]["input"]["description"]
            .as_str()
            .unwrap();
        for token in ["<enter>", "<up>", "<ctrl+c>", "<lt>"] {
            assert!(input_doc.contains(token), "{token}");
        }
        assert!(jsonschema::meta::is_valid(&schema));
    }

    #[test]
    fn a_tool_without_input_has_no_apply() {
        let tool = cargo();
        let schema = tool.schema();
        assert!(variant(&schema, "apply").is_none());
        assert_eq!(schema["oneOf"].as_array().unwrap().len(), 3);
        for nullable in [false, true] {
            let flat = tool.flat_schema(nullable);
            assert_eq!(
                flat["properties"]["action"]["enum"],
                json!(["spawn", "fetch", "abort"])
            );
            assert!(flat["properties"].get("input").is_none());
        }
        let description = tool.model_description();
        assert!(!description.contains("apply"), "{description}");
        assert!(description.contains("- test: runs `cargo test`; output only, no input."));
    }

    #[test]
    fn args_schemas_become_if_then_rules_and_descriptions() {
        let schema = cargo().schema();
        let spawn = variant(&schema, "spawn").unwrap();
        assert_eq!(
            spawn["allOf"],
            json!([{
                "if": { "properties": { "command": { "const": "test" } }, "required": ["command"] },
                "then": { "properties": { "args": {
                    "$id": "urn:ptypilot:args:test", "type": "array", "maxItems": 1,
                    "description": "at most one test name filter",
                } } },
            }])
        );
        let args_doc = cargo().flat_schema(false)["properties"]["args"]["description"].clone();
        assert!(
            args_doc
                .as_str()
                .unwrap()
                .ends_with("For test: at most one test name filter."),
            "{args_doc}"
        );
        let tool = ToolSpec::from_json(&json!({ "name": "t", "commands": [
            { "name": "a", "program": ["x"], "argsSchema": { "maxItems": 2 } },
        ] }))
        .unwrap();
        let args_doc = tool.flat_schema(false)["properties"]["args"]["description"].clone();
        assert!(
            args_doc
                .as_str()
                .unwrap()
                .ends_with("For a: must match the JSON schema {\"maxItems\":2}."),
            "{args_doc}"
        );
    }

    /// What both providers require of a tool's input schema at the top.
    fn assert_provider_safe(schema: &Value) {
        assert_eq!(schema["type"], "object");
        for key in ["oneOf", "anyOf", "allOf", "enum", "not", "const", "if"] {
            assert!(schema.get(key).is_none(), "top-level {key}");
        }
        assert!(schema["properties"].is_object());
    }

    /// OpenAI strict mode: every object closed, every property required.
    fn assert_openai_strict(schema: &Value) {
        match schema {
            Value::Object(map) => {
                if map.get("type") == Some(&json!("object")) {
                    assert_eq!(map["additionalProperties"], false);
                    let mut props: Vec<&String> =
                        map["properties"].as_object().unwrap().keys().collect();
                    let mut required: Vec<&str> = map["required"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r.as_str().unwrap())
                        .collect();
                    props.sort();
                    required.sort();
                    assert_eq!(props, required);
                }
                map.values().for_each(assert_openai_strict);
            }
            Value::Array(items) => items.iter().for_each(assert_openai_strict),
            _ => {}
        }
    }

    #[test]
    fn definitions_fit_each_provider() {
        for tool in [git(), cargo()] {
            let anthropic = tool.definition(DefinitionFormat::Anthropic);
            assert_eq!(anthropic["name"], tool.name());
            assert!(
                anthropic["description"]
                    .as_str()
                    .unwrap()
                    .contains("\"spawn\"")
            );
            assert_provider_safe(&anthropic["input_schema"]);
            assert_eq!(anthropic["input_schema"]["required"], json!(["action"]));
            assert_eq!(anthropic.as_object().unwrap().len(), 3);

            let openai = tool.definition(DefinitionFormat::OpenAi);
            assert_eq!(openai["type"], "function");
            assert_eq!(openai["function"]["name"], tool.name());
            assert_eq!(openai["function"]["strict"], true);
            assert_provider_safe(&openai["function"]["parameters"]);
            assert_openai_strict(&openai["function"]["parameters"]);

            let responses = tool.definition(DefinitionFormat::OpenAiResponses);
            assert_eq!(responses["type"], "function");
            assert_eq!(responses["name"], tool.name());
            assert_eq!(responses["strict"], true);
            assert_eq!(responses["description"], openai["function"]["description"]);
            assert_eq!(responses["parameters"], openai["function"]["parameters"]);
            assert_eq!(responses.as_object().unwrap().len(), 5);

            let mcp = tool.definition(DefinitionFormat::Mcp);
            assert_eq!(mcp["name"], tool.name());
            assert_eq!(mcp["description"], anthropic["description"]);
            assert_eq!(mcp["inputSchema"], anthropic["input_schema"]);
            assert_eq!(mcp.as_object().unwrap().len(), 3);

            for schema in [
                &anthropic["input_schema"],
                &openai["function"]["parameters"],
            ] {
                assert!(jsonschema::meta::is_valid(schema));
            }
        }
        assert_eq!(
            DefinitionFormat::parse("openai-responses").unwrap(),
            DefinitionFormat::OpenAiResponses
        );
        assert_eq!(
            DefinitionFormat::parse("mcp").unwrap(),
            DefinitionFormat::Mcp
        );
        let both = definitions([&git(), &cargo()], DefinitionFormat::OpenAi);
        assert_eq!(both.len(), 2);
        assert_eq!(both[1]["function"]["name"], "cargo");
    }

    #[test]
    fn model_description_explains_the_protocol_and_lists_commands() {
        let description = git().model_description();
        assert!(
            description.starts_with("Work with the git repository in the current directory.\n\n")
        );
        for part in [
            "\"spawn\"",
            "\"apply\"",
            "\"fetch\"",
            "\"abort\"",
            "<ctrl+c>",
            "running",
            "stopped",
        ] {
            assert!(description.contains(part), "{part}: {description}");
        }
        assert!(description.ends_with(
            "Commands:\n- stage: Interactive staging (git add --patch); takes input.\n- rebase: \
             Interactive rebase (git rebase -i); takes input.\n- log: Recent commits (git log \
             --oneline -20); output only, no input."
        ));
    }

    #[test]
    fn format_names_parse() {
        assert_eq!(
            DefinitionFormat::parse("anthropic").unwrap(),
            DefinitionFormat::Anthropic
        );
        assert_eq!(
            "openai".parse::<DefinitionFormat>().unwrap(),
            DefinitionFormat::OpenAi
        );
        assert_eq!(DefinitionFormat::default(), DefinitionFormat::Anthropic);
        let err = DefinitionFormat::parse("gemini").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert_eq!(
            err.message,
            "format must be \"anthropic\", \"openai\", \"openai-responses\" or \"mcp\", got \"gemini\""
        );
    }

    /// `call` as an OpenAI strict-mode model writes it: every flat field
    /// present, `null` where the action does not use it.
    fn openai_form(tool: &ToolSpec, call: &Value) -> Value {
        let mut filled = call.as_object().unwrap().clone();
        for key in tool.flat_schema(true)["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            filled.entry(key.clone()).or_insert(Value::Null);
        }
        Value::Object(filled)
    }

    fn sample_calls() -> Vec<Value> {
        vec![
            json!({ "action": "spawn", "command": "stage" }),
            json!({ "action": "spawn", "command": "rebase", "args": ["--autosquash", "HEAD~3"] }),
            json!({ "action": "spawn", "command": "log", "args": [] }),
            json!({ "action": "fetch", "id": "h1" }),
            json!({ "action": "apply", "id": "h1", "input": "y<enter>" }),
            json!({ "action": "apply", "id": "h1", "input": "" }),
            json!({ "action": "abort", "id": "h1" }),
        ]
    }

    #[test]
    fn sample_calls_round_trip_through_both_schemas() {
        let tool = git();
        let oneof = jsonschema::validator_for(&tool.schema()).unwrap();
        let anthropic = jsonschema::validator_for(&tool.flat_schema(false)).unwrap();
        let openai = jsonschema::validator_for(&tool.flat_schema(true)).unwrap();
        for call in sample_calls() {
            let filled = openai_form(&tool, &call);
            assert!(oneof.is_valid(&call), "oneOf: {call}");
            assert!(anthropic.is_valid(&call), "anthropic: {call}");
            assert!(openai.is_valid(&filled), "openai: {filled}");
            let direct = tool.validate_call(&call).unwrap();
            assert_eq!(tool.validate_call(&filled).unwrap(), direct, "{filled}");
            // The parsed call, written back, is the same call.
            let back = match &direct {
                ToolCall::Spawn { command, args } => {
                    json!({ "action": "spawn", "command": command, "args": args })
                }
                ToolCall::Fetch { id } => json!({ "action": "fetch", "id": id }),
                ToolCall::Apply { id, input } => {
                    json!({ "action": "apply", "id": id, "input": input })
                }
                ToolCall::Abort { id } => json!({ "action": "abort", "id": id }),
            };
            assert_eq!(tool.validate_call(&back).unwrap(), direct);
        }
    }

    #[test]
    fn calls_the_flat_schemas_allow_are_still_checked_per_action() {
        let tool = git();
        let oneof = jsonschema::validator_for(&tool.schema()).unwrap();
        let anthropic = jsonschema::validator_for(&tool.flat_schema(false)).unwrap();
        let openai = jsonschema::validator_for(&tool.flat_schema(true)).unwrap();
        for (call, message) in [
            (
                json!({ "action": "fetch", "id": "h1", "input": "y" }),
                "input.input is not allowed for action \"fetch\" (it takes action, id, full)",
            ),
            (
                json!({ "action": "spawn", "command": "log", "id": "h1" }),
                "input.id is not allowed for action \"spawn\" (it takes action, command, args)",
            ),
            (
                json!({ "action": "spawn" }),
                "input.command is required for action \"spawn\"",
            ),
            (
                json!({ "action": "apply", "id": "h1" }),
                "input.input is required for action \"apply\"",
            ),
            (
                json!({ "action": "abort" }),
                "input.id is required for action \"abort\"",
            ),
        ] {
            assert!(!oneof.is_valid(&call), "{call}");
            let filled = openai_form(&tool, &call);
            // The flat schemas let these through ...
            assert!(anthropic.is_valid(&call), "{call}");
            assert!(openai.is_valid(&filled), "{filled}");
            // ... validate_call does not, and says the same either way.
            for input in [&call, &filled] {
                let err = tool.validate_call(input).unwrap_err();
                assert_eq!(
                    (err.code, err.message.as_str()),
                    (ErrorCode::InvalidInput, message)
                );
            }
        }
    }

    #[test]
    fn calls_every_schema_rejects_are_rejected_the_same_way() {
        let tool = git();
        let oneof = jsonschema::validator_for(&tool.schema()).unwrap();
        let anthropic = jsonschema::validator_for(&tool.flat_schema(false)).unwrap();
        for call in [
            json!({ "action": "spawn", "command": "push" }),
            json!({ "action": "spawn", "command": "stage", "args": [1] }),
            json!({ "action": "run", "id": "h1" }),
            json!({ "action": "fetch", "id": 1 }),
            json!({ "action": "fetch", "id": "h1", "extra": true }),
        ] {
            assert!(
                !oneof.is_valid(&call) && !anthropic.is_valid(&call),
                "{call}"
            );
            let direct = tool.validate_call(&call).unwrap_err();
            let filled = tool.validate_call(&openai_form(&tool, &call)).unwrap_err();
            assert_eq!(direct, filled, "{call}");
        }
    }
}
