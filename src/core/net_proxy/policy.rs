//! Which hosts a sandboxed program may reach through the proxy: the
//! `network: { allow, deny?, local?, ask? }` option, and the decision for
//! one host and port.

use crate::core::error::{Error, Result};

/// An allow list of hosts (the `network: { allow, ... }` option).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NetPolicy {
    /// Hosts the program may reach, as patterns ([`Pattern`]).
    pub allow: Vec<Pattern>,
    /// Hosts refused even when `allow` names them.
    pub deny: Vec<Pattern>,
    /// Loopback ports of this machine the program may reach
    /// (`127.0.0.1:PORT` inside the sandbox is the host's port).
    pub local: Vec<u16>,
    /// A host on neither list is asked about (the process's asker, see
    /// [`super::set_asker`]) instead of refused.
    pub ask: bool,
}

/// One entry of an allow or deny list: `example.org`, `*.example.org`
/// (any name below it, not the name itself), an IP address, each with an
/// optional `:PORT`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The name (lower case), without a leading `*.`.
    pub host: String,
    /// `*.` came before the name.
    pub wildcard: bool,
    /// Only this port, when given.
    pub port: Option<u16>,
}

impl Pattern {
    /// Parses `text`; `what` names the list in errors.
    pub fn parse(text: &str, what: &str) -> Result<Pattern> {
        let bad = || {
            Error::invalid_arg(format!(
                "{what} must hold host names (example.org, *.example.org, optionally :PORT) or IP addresses, got {text:?}"
            ))
        };
        let text = text.trim();
        let (host, port) = split_port(text).ok_or_else(bad)?;
        let (host, wildcard) = match host.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (host, false),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let valid = !host.is_empty()
            && host.len() <= 253
            && (host.parse::<std::net::IpAddr>().is_ok()
                || host.split('.').all(|l| {
                    !l.is_empty()
                        && l.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                }));
        if !valid || wildcard && host.parse::<std::net::IpAddr>().is_ok() {
            return Err(bad());
        }
        Ok(Pattern {
            host: host.to_ascii_lowercase(),
            wildcard,
            port,
        })
    }

    /// True when `host` (lower case) and `port` fall under this entry.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        if self.wildcard {
            host.len() > self.host.len()
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        }
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.wildcard {
            f.write_str("*.")?;
        }
        f.write_str(&self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        Ok(())
    }
}

/// `host[:port]` (IPv6 in brackets when a port follows); `None` for a bad port.
fn split_port(text: &str) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = text.strip_prefix('[') {
        let end = rest.find(']')?;
        let after = &rest[end + 1..];
        return match after.strip_prefix(':') {
            Some(p) => Some((&text[..end + 2], Some(p.parse().ok()?))),
            None if after.is_empty() => Some((text, None)),
            None => None,
        };
    }
    match text.rsplit_once(':') {
        // More than one colon: a bare IPv6 address.
        Some((host, _)) if host.contains(':') => Some((text, None)),
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((text, None)),
    }
}

/// What the proxy does with a connection to a host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Connect.
    Allow,
    /// Refuse, for this reason (a phrase: "not on the allow list").
    Deny(String),
    /// Ask the person (the policy asks, and no list decides).
    Ask,
}

impl NetPolicy {
    /// The decision for `host` (a name or an IP literal) and `port`.
    pub fn decide(&self, host: &str, port: u16) -> Decision {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        if self.deny.iter().any(|p| p.matches(&host, port)) {
            return Decision::Deny("on the deny list".to_owned());
        }
        if self.allow.iter().any(|p| p.matches(&host, port)) {
            return Decision::Allow;
        }
        if host.parse::<std::net::IpAddr>().is_ok() {
            return Decision::Deny(
                "an IP address, not a name on the allow list; only listed addresses are reachable"
                    .to_owned(),
            );
        }
        if self.ask {
            Decision::Ask
        } else {
            Decision::Deny(format!(
                "not on the network allow list; the person can add it: network.allow, or ptypilot mcp --allow-host {host}"
            ))
        }
    }

    /// Parses the object form of the `network` option; `what` names it in
    /// errors (`o.sandbox.network`).
    pub fn from_json(
        obj: &serde_json::Map<String, serde_json::Value>,
        what: &str,
    ) -> Result<NetPolicy> {
        use serde_json::Value;
        let list = |name: &str| -> Result<Vec<Pattern>> {
            let field = format!("{what}.{name}");
            match obj.get(name) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item.as_str() {
                        Some(s) => Pattern::parse(s, &field),
                        None => Err(Error::invalid_arg(format!(
                            "{field} must hold host names, got {item}"
                        ))),
                    })
                    .collect(),
                Some(other) => Err(Error::invalid_arg(format!(
                    "{field} must be an array of host names, got {other}"
                ))),
            }
        };
        if !obj.contains_key("allow") {
            return Err(Error::invalid_arg(format!(
                "{what} must be 'on', 'off', true, false or {{ allow, deny?, local?, ask? }}, got an object without allow"
            )));
        }
        let allow = list("allow")?;
        let deny = list("deny")?;
        let local = match obj.get("local") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item.as_u64() {
                    Some(p) if (1..=65535).contains(&p) => Ok(p as u16),
                    _ => Err(Error::invalid_arg(format!(
                        "{what}.local must hold port numbers (1-65535), got {item}"
                    ))),
                })
                .collect::<Result<Vec<_>>>()?,
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{what}.local must be an array of port numbers, got {other}"
                )));
            }
        };
        let ask = match obj.get("ask") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{what}.ask must be a boolean, got {other}"
                )));
            }
        };
        if let Some(unknown) = obj
            .keys()
            .find(|k| !["allow", "deny", "local", "ask"].contains(&k.as_str()))
        {
            return Err(Error::invalid_arg(format!(
                "{what} has an unknown option {unknown:?} (known: allow, deny, local, ask)"
            )));
        }
        if local.len() > super::MAX_LOCAL_PORTS {
            return Err(Error::invalid_arg(format!(
                "{what}.local may name at most {} ports, got {}",
                super::MAX_LOCAL_PORTS,
                local.len()
            )));
        }
        Ok(NetPolicy {
            allow,
            deny,
            local,
            ask,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(v: serde_json::Value) -> Result<NetPolicy> {
        NetPolicy::from_json(v.as_object().unwrap(), "o.network")
    }

    #[test]
    fn wildcards_match_names_below_not_the_name() {
        let p = Pattern::parse("*.Example.org", "x").unwrap();
        assert!(p.matches("a.example.org", 443));
        assert!(p.matches("b.a.example.org", 80));
        assert!(!p.matches("example.org", 443));
        assert!(!p.matches("badexample.org", 443));
        let q = Pattern::parse("registry.npmjs.org:443", "x").unwrap();
        assert!(q.matches("registry.npmjs.org", 443));
        assert!(!q.matches("registry.npmjs.org", 80));
        assert_eq!(q.to_string(), "registry.npmjs.org:443");
        assert!(
            Pattern::parse("[::1]:8080", "x")
                .unwrap()
                .matches("::1", 8080)
        );
        assert!(Pattern::parse("::1", "x").unwrap().matches("::1", 1));
        for bad in ["", "*.", "a b", "x:99999", "*.10.0.0.1", "http://x"] {
            assert!(Pattern::parse(bad, "o.allow").is_err(), "{bad}");
        }
    }

    #[test]
    fn deny_wins_ip_literals_need_listing_and_ask_only_for_names() {
        let p = policy(json!({ "allow": ["*.example.org", "10.0.0.5"], "deny": ["bad.example.org"], "ask": true })).unwrap();
        assert_eq!(p.decide("files.example.org", 443), Decision::Allow);
        assert_eq!(p.decide("FILES.example.org.", 443), Decision::Allow);
        assert!(
            matches!(p.decide("bad.example.org", 443), Decision::Deny(r) if r.contains("deny list"))
        );
        assert_eq!(p.decide("10.0.0.5", 22), Decision::Allow);
        assert!(
            matches!(p.decide("93.184.216.34", 443), Decision::Deny(r) if r.contains("IP address"))
        );
        assert!(matches!(p.decide("[::1]", 443), Decision::Deny(_)));
        assert_eq!(p.decide("other.net", 443), Decision::Ask);
        let strict = policy(json!({ "allow": [] })).unwrap();
        assert!(
            matches!(strict.decide("other.net", 443), Decision::Deny(r) if r.contains("--allow-host other.net"))
        );
    }

    #[test]
    fn options_name_what_is_wrong() {
        let p = policy(json!({ "allow": ["a.org"], "local": [5432, 3000] })).unwrap();
        assert_eq!(p.local, [5432, 3000]);
        for (bad, says) in [
            (json!({ "deny": [] }), "without allow"),
            (
                json!({ "allow": "a.org" }),
                "o.network.allow must be an array",
            ),
            (json!({ "allow": [1] }), "must hold host names"),
            (json!({ "allow": [], "local": [0] }), "port numbers"),
            (
                json!({ "allow": [], "ask": "yes" }),
                "o.network.ask must be a boolean",
            ),
            (
                json!({ "allow": [], "alow": [] }),
                "unknown option \"alow\"",
            ),
        ] {
            let err = policy(bad).unwrap_err();
            assert!(err.message.contains(says), "{}", err.message);
        }
    }
}
