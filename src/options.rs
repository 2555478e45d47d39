//! Reads option objects passed from JS, with `ERR_INVALID_ARG` errors that name
//! the option and the value (`options.cols must be a number, got string "80"`)
//! and reject unknown keys (a typo should not be silently ignored).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use crate::core::error::js_number;
use crate::core::time;
use crate::core::{Error as CoreError, Result as CoreResult};

/// Variables to set (`Some`) or remove (`None`), in the order given.
pub type EnvOverrides = Vec<(String, Option<String>)>;

/// A JS options object being read key by key.
pub struct Opts<'e> {
    obj: Option<Object<'e>>,
    what: String,
    known: Vec<&'static str>,
}

impl<'e> Opts<'e> {
    /// Wraps `value` (an object, or `undefined`/`null` for "no options").
    pub fn new(value: Option<Unknown<'e>>, what: &str) -> CoreResult<Self> {
        let obj = match value {
            None => None,
            Some(v) => match type_of(&v) {
                ValueType::Undefined | ValueType::Null => None,
                ValueType::Object => Some(unsafe { v.cast::<Object>() }.map_err(internal)?),
                _ => {
                    return Err(CoreError::invalid_arg(format!(
                        "{what} must be an object, got {}",
                        describe(&v)
                    )));
                }
            },
        };
        Ok(Opts {
            obj,
            what: what.to_owned(),
            known: Vec::new(),
        })
    }

    /// True when no options object was given.
    pub fn is_empty(&self) -> bool {
        self.obj.is_none()
    }

    fn get(&mut self, key: &'static str) -> CoreResult<Option<Unknown<'e>>> {
        self.known.push(key);
        let Some(obj) = &self.obj else {
            return Ok(None);
        };
        let value: Unknown<'e> = obj
            .get_named_property(key)
            .map_err(|e| thrown(obj.value().env, &format!("{}.{key}", self.what), e))?;
        Ok(match type_of(&value) {
            ValueType::Undefined => None,
            _ => Some(value),
        })
    }

    fn type_error(&self, key: &str, expected: &str, value: &Unknown) -> CoreError {
        CoreError::invalid_arg(format!(
            "{}.{key} must be {expected}, got {}",
            self.what,
            describe(value)
        ))
    }

    /// Marks `key` as accepted without reading it (handled elsewhere).
    pub fn skip(&mut self, key: &'static str) {
        self.known.push(key);
    }

    /// A string option.
    pub fn string(&mut self, key: &'static str) -> CoreResult<Option<String>> {
        match self.get(key)? {
            None => Ok(None),
            Some(v) if type_of(&v) == ValueType::String => {
                Ok(Some(unsafe { v.cast::<String>() }.map_err(internal)?))
            }
            Some(v) => Err(self.type_error(key, "a string", &v)),
        }
    }

    /// A path option; a path with a NUL character is `ERR_INVALID_ARG`.
    pub fn path(&mut self, key: &'static str) -> CoreResult<Option<std::path::PathBuf>> {
        let path = self.string(key)?.map(std::path::PathBuf::from);
        if let Some(p) = path
            .as_ref()
            .filter(|p| p.as_os_str().as_encoded_bytes().contains(&0))
        {
            return Err(CoreError::invalid_arg(format!(
                "{}.{key} must not contain NUL characters, got {p:?}",
                self.what
            )));
        }
        Ok(path)
    }

    /// The terminal size, `cols` and `rows` (80×24 when not given), checked
    /// as the screen checks it.
    pub fn size(&mut self) -> CoreResult<(u16, u16)> {
        let cols = self.number("cols")?.unwrap_or(80.0);
        let rows = self.number("rows")?.unwrap_or(24.0);
        crate::core::screen::validate_size(cols, rows).map_err(|mut e| {
            e.message = format!("{}.{}", self.what, e.message);
            e
        })
    }

    /// A number option (finite).
    pub fn number(&mut self, key: &'static str) -> CoreResult<Option<f64>> {
        match self.get(key)? {
            None => Ok(None),
            Some(v) if type_of(&v) == ValueType::Number => {
                let n = unsafe { v.cast::<f64>() }.map_err(internal)?;
                if n.is_nan() {
                    return Err(self.type_error(key, "a number", &v));
                }
                Ok(Some(n))
            }
            Some(v) => Err(self.type_error(key, "a number", &v)),
        }
    }

    /// A non-negative integer number of milliseconds.
    pub fn millis(&mut self, key: &'static str) -> CoreResult<Option<u64>> {
        let Some(n) = self.number(key)? else {
            return Ok(None);
        };
        if !(0.0..=time::MAX_MILLIS).contains(&n) || n.fract() != 0.0 {
            return Err(CoreError::invalid_arg(format!(
                "{}.{key} must be a non-negative integer number of milliseconds, got {} (at most 1e12)",
                self.what,
                js_number(n)
            )));
        }
        Ok(Some(n as u64))
    }

    /// An integer in `lo..=hi`.
    pub fn integer(&mut self, key: &'static str, lo: f64, hi: f64) -> CoreResult<Option<f64>> {
        let Some(n) = self.number(key)? else {
            return Ok(None);
        };
        if n < lo || n > hi || n.fract() != 0.0 {
            return Err(CoreError::invalid_arg(format!(
                "{}.{key} must be an integer between {lo} and {hi}, got {n}",
                self.what
            )));
        }
        Ok(Some(n))
    }

    /// A boolean option.
    pub fn bool(&mut self, key: &'static str) -> CoreResult<Option<bool>> {
        match self.get(key)? {
            None => Ok(None),
            Some(v) if type_of(&v) == ValueType::Boolean => {
                Ok(Some(unsafe { v.cast::<bool>() }.map_err(internal)?))
            }
            Some(v) => Err(self.type_error(key, "a boolean", &v)),
        }
    }

    /// A boolean or a string (e.g. `shell: true | 'bash'`).
    pub fn bool_or_string(
        &mut self,
        key: &'static str,
    ) -> CoreResult<Option<Either<bool, String>>> {
        match self.get(key)? {
            None => Ok(None),
            Some(v) => match type_of(&v) {
                ValueType::Boolean => Ok(Some(Either::A(
                    unsafe { v.cast::<bool>() }.map_err(internal)?,
                ))),
                ValueType::String => Ok(Some(Either::B(
                    unsafe { v.cast::<String>() }.map_err(internal)?,
                ))),
                _ => Err(self.type_error(key, "a boolean or a string", &v)),
            },
        }
    }

    /// The `sandbox` option (see [`crate::core::sandbox::Policy::from_json`]).
    /// Absent: off.
    pub fn sandbox(&mut self, key: &'static str) -> CoreResult<crate::core::sandbox::Policy> {
        let what = format!("{}.{key}", self.what);
        let Some(v) = self.get(key)? else {
            return Ok(crate::core::sandbox::Policy::default());
        };
        let json: serde_json::Value = match type_of(&v) {
            ValueType::String => {
                serde_json::Value::String(unsafe { v.cast::<String>() }.map_err(internal)?)
            }
            ValueType::Object => Env::from_raw(v.value().env)
                .from_js_value(v)
                .map_err(|e| CoreError::invalid_arg(format!("{what}: {}", e.reason)))?,
            _ => return Err(self.type_error(key, "a sandbox mode or an object", &v)),
        };
        crate::core::sandbox::Policy::from_json(&json, &what)
    }

    /// The `conpty` option: `{ inheritCursor?, resizeQuirk?, win32InputMode? }`,
    /// each a boolean (default false). Absent: all off, as node-pty.
    pub fn conpty(&mut self, key: &'static str) -> CoreResult<crate::core::pty::ConPtyFlags> {
        let what = format!("{}.{key}", self.what);
        let mut nested = Opts::new(self.get(key)?, &what)?;
        let flags = crate::core::pty::ConPtyFlags {
            inherit_cursor: nested.bool("inheritCursor")?.unwrap_or(false),
            resize_quirk: nested.bool("resizeQuirk")?.unwrap_or(false),
            win32_input_mode: nested.bool("win32InputMode")?.unwrap_or(false),
        };
        nested.finish()?;
        Ok(flags)
    }

    /// An array of strings.
    pub fn strings(&mut self, key: &'static str) -> CoreResult<Option<Vec<String>>> {
        let Some(v) = self.get(key)? else {
            return Ok(None);
        };
        if !is_array(&v) {
            return Err(self.type_error(key, "an array of strings", &v));
        }
        let arr = unsafe { v.cast::<Object>() }.map_err(internal)?;
        let what = format!("{}.{key}", self.what);
        let env = arr.value().env;
        let len: u32 = arr
            .get_named_property("length")
            .map_err(|e| thrown(env, &what, e))?;
        let mut out = Vec::with_capacity(len as usize);
        for i in 0..len {
            let item: Unknown = arr
                .get_element(i)
                .map_err(|e| thrown(env, &format!("{what}[{i}]"), e))?;
            if type_of(&item) != ValueType::String {
                return Err(CoreError::invalid_arg(format!(
                    "{}.{key}[{i}] must be a string, got {}",
                    self.what,
                    describe(&item)
                )));
            }
            out.push(unsafe { item.cast::<String>() }.map_err(internal)?);
        }
        Ok(Some(out))
    }

    /// A `Record<string, string | undefined>`; `undefined` values come back as `None`.
    pub fn string_map(&mut self, key: &'static str) -> CoreResult<Option<EnvOverrides>> {
        let Some(v) = self.get(key)? else {
            return Ok(None);
        };
        if type_of(&v) != ValueType::Object || is_array(&v) {
            return Err(self.type_error(key, "an object of strings", &v));
        }
        let obj = unsafe { v.cast::<Object>() }.map_err(internal)?;
        let mut out = Vec::new();
        let what = format!("{}.{key}", self.what);
        let env = obj.value().env;
        for name in Object::keys(&obj).map_err(|e| thrown(env, &what, e))? {
            if name.contains('\0') {
                // No variable name holds a NUL (and a name with one cannot be
                // looked up by name).
                return Err(CoreError::invalid_arg(format!(
                    "{}.{key}: {name:?} is not a variable name (it must be non-empty, without '=' or NUL)",
                    self.what
                )));
            }
            let item: Unknown = obj
                .get_named_property(&name)
                .map_err(|e| thrown(env, &format!("{what}.{name}"), e))?;
            match type_of(&item) {
                ValueType::Undefined => out.push((name, None)),
                ValueType::String => {
                    let s = unsafe { item.cast::<String>() }.map_err(internal)?;
                    out.push((name, Some(s)));
                }
                _ => {
                    return Err(CoreError::invalid_arg(format!(
                        "{}.{key}.{name} must be a string or undefined, got {}",
                        self.what,
                        describe(&item)
                    )));
                }
            }
        }
        Ok(Some(out))
    }

    /// Environment variables (see [`Opts::string_map`]), checked as the core
    /// checks them ([`crate::core::session::check_env`]), the message naming
    /// the option.
    pub fn env(&mut self, key: &'static str) -> CoreResult<Option<EnvOverrides>> {
        let vars = self.string_map(key)?;
        if let Some(vars) = &vars {
            crate::core::session::check_env(vars).map_err(|mut e| {
                e.message = format!("{}.{}", self.what, e.message);
                e
            })?;
        }
        Ok(vars)
    }

    /// Fails on keys that were never asked for.
    pub fn finish(self) -> CoreResult<()> {
        let Some(obj) = &self.obj else {
            return Ok(());
        };
        for key in Object::keys(obj).map_err(|e| thrown(obj.value().env, &self.what, e))? {
            if !self.known.contains(&key.as_str()) {
                let mut known = self.known.clone();
                known.sort_unstable();
                known.dedup();
                return Err(CoreError::invalid_arg(format!(
                    "unknown option {}.{key}; known options: {}",
                    self.what,
                    known.join(", ")
                )));
            }
        }
        Ok(())
    }
}

fn type_of(v: &Unknown) -> ValueType {
    v.get_type().unwrap_or(ValueType::Unknown)
}

fn is_array(v: &Unknown) -> bool {
    let mut result = false;
    // SAFETY: env and value come from a live Unknown on the JS thread.
    unsafe { napi::sys::napi_is_array(v.value().env, v.raw(), &mut result) };
    result
}

/// The error for a failed read of `what`: when JS threw (a getter, a proxy),
/// `ERR_INVALID_ARG` quoting it (and the exception is cleared, so the coded
/// error is what the caller gets); otherwise `ERR_INTERNAL`.
pub fn thrown(env: napi::sys::napi_env, what: &str, e: napi::Error) -> CoreError {
    match take_exception(env) {
        Some(text) => CoreError::invalid_arg(format!("{what} could not be read: it threw {text}")),
        None => internal(e),
    }
}

/// Clears the pending JS exception, if any, and returns it as text.
fn take_exception(env: napi::sys::napi_env) -> Option<String> {
    use napi::sys;
    let mut pending = false;
    // SAFETY: Node-API calls on the JS thread of `env`; out-pointers valid.
    unsafe {
        sys::napi_is_exception_pending(env, &mut pending);
        if !pending {
            return None;
        }
        let mut exception = std::ptr::null_mut();
        sys::napi_get_and_clear_last_exception(env, &mut exception);
        let value = Unknown::from_raw_unchecked(env, exception);
        let text = value
            .coerce_to_string()
            .and_then(|s| s.into_utf8())
            .and_then(|s| s.into_owned());
        match text {
            Ok(text) => Some(text),
            Err(_) => {
                // Its toString threw too.
                let mut again = std::ptr::null_mut();
                sys::napi_get_and_clear_last_exception(env, &mut again);
                Some(format!("{} (not printable)", describe(&value)))
            }
        }
    }
}

fn internal(e: napi::Error) -> CoreError {
    CoreError::new(crate::core::ErrorCode::Internal, e.reason.clone())
}

/// How a value reads in an error message: `string "80"`, `number 3`, `an array`.
pub fn describe(v: &Unknown) -> String {
    match type_of(v) {
        ValueType::Undefined => "undefined".into(),
        ValueType::Null => "null".into(),
        ValueType::String => {
            let s = unsafe { v.cast::<String>() }.unwrap_or_default();
            let shown: String = s.chars().take(40).collect();
            let ellipsis = if shown.len() < s.len() { "…" } else { "" };
            format!("string {:?}", format!("{shown}{ellipsis}"))
        }
        ValueType::Number => format!("number {}", unsafe { v.cast::<f64>() }.unwrap_or(f64::NAN)),
        ValueType::Boolean => format!("boolean {}", unsafe { v.cast::<bool>() }.unwrap_or(false)),
        ValueType::Object if is_array(v) => "an array".into(),
        ValueType::Object => "an object".into(),
        ValueType::Function => "a function".into(),
        ValueType::BigInt => "a bigint".into(),
        ValueType::Symbol => "a symbol".into(),
        _ => "an unknown value".into(),
    }
}
