//! `ToolRegistry` binding: tool specs and calls as plain JS objects (JSON),
//! the registry itself in `core::tools::registry`.
//!
//! Events reach JS through one threadsafe function that takes every waiting
//! event at once, so per-handle order (`started`, `output`…, `finished`) is
//! kept. It does not keep the event loop alive: a registry is long-lived, and
//! its owner decides when to `abortAll()`.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use serde_json::{Value, json};

use crate::core::Error as CoreError;
use crate::core::tools::registry::{
    EventListener, HandleInfo, Registry, RegistryOptions, ToolEvent,
};
use crate::core::tools::{DefinitionFormat, ToolSpec, definitions};
use crate::error::{IntoJs, js_error};
use crate::incidents::contain;
use crate::options::Opts;
use crate::pty_session::ScreenSnapshot;

type EventPump = ThreadsafeFunction<(), (), Value, Status, false, true>;

struct PumpListener(EventPump);

impl EventListener for PumpListener {
    fn wake(&self) {
        self.0.call((), ThreadsafeFunctionCallMode::NonBlocking);
    }
}

/// The native half of `ToolRegistry`. Internal: use `ToolRegistry` from the package.
#[napi]
pub struct NativeRegistry {
    registry: Registry,
}

#[napi]
impl NativeRegistry {
    /// A registry; `onEvents(events[])` (optional) receives events in batches.
    /// `firstId`: the number of the first handle id (an isolated host after a
    /// crash starts past the lost ones).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        options: Option<Unknown>,
        on_events: Option<Function<'_, Value, ()>>,
        base_env: Option<std::collections::HashMap<String, String>>,
        first_id: Option<f64>,
    ) -> Result<Self> {
        let mut opts = Opts::new(options, "options").into_js(&env)?;
        let cwd = opts.string("cwd").into_js(&env)?;
        let max_handles = opts.integer("maxHandles", 1.0, 100_000.0).into_js(&env)?;
        let max_content = opts
            .integer("maxContentChars", 100.0, 1.0e8)
            .into_js(&env)?;
        let sandbox = opts.sandbox("sandbox").into_js(&env)?;
        // Wired up by the JS layer.
        opts.skip("onEvent");
        opts.finish().into_js(&env)?;
        if let Some(dir) = &cwd {
            let meta = std::fs::metadata(dir);
            if !meta.is_ok_and(|m| m.is_dir()) {
                return Err(js_error(
                    &env,
                    &CoreError::invalid_arg(format!(
                        "options.cwd must be an existing directory, got {dir:?}"
                    )),
                ));
            }
        }
        let defaults = RegistryOptions::default();
        let options = RegistryOptions {
            cwd: cwd.map(Into::into),
            max_handles: max_handles.map_or(defaults.max_handles, |n| n as usize),
            max_content_chars: max_content.map_or(defaults.max_content_chars, |n| n as usize),
            base_env: base_env.map(|m| m.into_iter().collect()),
            first_id: first_id.map_or(1, |n| n.clamp(1.0, 1.0e15) as u64),
            sandbox,
        };
        let slot: Arc<std::sync::OnceLock<Registry>> = Arc::new(std::sync::OnceLock::new());
        let listener: Option<Arc<dyn EventListener>> = match on_events {
            None => None,
            Some(f) => {
                let taker = slot.clone();
                let tsfn: EventPump = f
                    .build_threadsafe_function::<()>()
                    .callee_handled::<false>()
                    .weak::<true>()
                    .build_callback(move |_ctx| {
                        let events = taker.get().map(Registry::take_events).unwrap_or_default();
                        let json = || Value::Array(events.into_iter().map(event_json).collect());
                        Ok(contain(
                            "delivering tool events",
                            Value::Array(Vec::new()),
                            json,
                        ))
                    })?;
                Some(Arc::new(PumpListener(tsfn)))
            }
        };
        let registry = Registry::new(options, listener);
        let _ = slot.set(registry.clone());
        crate::cleanup::track(&env, crate::cleanup::Owner::Registry(registry.downgrade()));
        Ok(NativeRegistry { registry })
    }

    /// Registers a tool (`InteractiveTool`); `ERR_INVALID_ARG` naming the bad field.
    #[napi(catch_unwind)]
    pub fn register(&self, env: &Env, tool: Value) -> Result<()> {
        let spec = ToolSpec::from_json(&tool).into_js(env)?;
        self.registry.register(spec).into_js(env)
    }

    /// The screen of a terminal handle now (`null` for an unknown handle, a
    /// pipes command or one that could not start): the cursor and size that
    /// lean screens put in their header.
    #[napi(catch_unwind)]
    pub fn screen(&self, id: String) -> Option<ScreenSnapshot> {
        self.registry
            .screen(&id)
            .map(|(snap, seq)| ScreenSnapshot::new(snap, seq))
    }

    /// Removes a tool (terminating its running handles); false when unknown.
    #[napi(catch_unwind)]
    pub fn unregister(&self, name: String) -> bool {
        self.registry.unregister(&name)
    }

    /// Registered tool names.
    #[napi(catch_unwind)]
    pub fn names(&self) -> Vec<String> {
        self.registry.names()
    }

    /// The tool's input schema (`{ type: 'object', oneOf: [...] }`).
    #[napi(catch_unwind)]
    pub fn schema(&self, env: &Env, name: String) -> Result<Value> {
        Ok(self.registry.tool(&name).into_js(env)?.schema())
    }

    /// Ready-to-send tool definitions for a provider.
    #[napi(catch_unwind)]
    pub fn definitions(&self, env: &Env, format: Option<String>) -> Result<Vec<Value>> {
        let format = match format {
            None => DefinitionFormat::default(),
            Some(f) => DefinitionFormat::parse(&f).into_js(env)?,
        };
        let tools = self.registry.tools();
        Ok(definitions(tools.iter(), format))
    }

    /// Carries out a tool call; resolves with the `ToolState`.
    #[napi(catch_unwind)]
    pub fn call<'e>(
        &self,
        env: &'e Env,
        name: String,
        input: Value,
    ) -> Result<PromiseRaw<'e, Value>> {
        let registry = self.registry.clone();
        env.spawn_future_with_callback(
            async move { Ok(registry.call(&name, &input).await) },
            |env, result| result.map_err(|e| js_error(env, &e)),
        )
    }

    /// Every handle not yet forgotten.
    #[napi(catch_unwind)]
    pub fn list(&self) -> Vec<Value> {
        self.registry.list().iter().map(info_json).collect()
    }

    /// Resolves with the handle's state once it stopped (or after `timeoutMs`).
    #[napi(catch_unwind)]
    pub fn wait<'e>(
        &self,
        env: &'e Env,
        id: String,
        timeout_ms: Option<f64>,
    ) -> Result<PromiseRaw<'e, Value>> {
        let registry = self.registry.clone();
        let timeout = timeout_ms.map(|ms| Duration::from_millis(ms.max(0.0) as u64));
        env.spawn_future_with_callback(
            async move { Ok(registry.wait(&id, timeout).await) },
            |env, result| result.map_err(|e| js_error(env, &e)),
        )
    }

    /// Terminates every running handle and waits for them.
    #[napi(catch_unwind)]
    pub fn abort_all<'e>(&self, env: &'e Env) -> Result<PromiseRaw<'e, ()>> {
        let registry = self.registry.clone();
        env.spawn_future(async move {
            registry.abort_all().await;
            Ok(())
        })
    }
}

fn info_json(info: &HandleInfo) -> Value {
    json!({
        "id": info.id,
        "tool": info.tool,
        "command": info.command,
        "args": info.args,
        "pid": info.pid,
        "state": info.state.as_str(),
        "startedAt": info.started_at,
        "finishedAt": info.finished_at,
        "exitCode": info.exit_code,
    })
}

fn event_json(event: ToolEvent) -> Value {
    match event {
        ToolEvent::Started(info) => with_type("started", info_json(&info)),
        ToolEvent::Output { id, chunk } => json!({ "type": "output", "id": id, "chunk": chunk }),
        ToolEvent::Finished(info) => {
            let mut value = with_type("finished", info_json(&info));
            let duration = info
                .finished_at
                .unwrap_or(info.started_at)
                .saturating_sub(info.started_at);
            value["durationMs"] = json!(duration);
            value
        }
    }
}

fn with_type(kind: &str, mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        let mut typed = serde_json::Map::new();
        typed.insert("type".into(), json!(kind));
        typed.extend(std::mem::take(map));
        *map = typed;
    }
    value
}
