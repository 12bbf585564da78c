//! A small schema-driven client for the hub's own OpenAPI document: lists its operations,
//! checks that each declares what it reads and what it answers, generates requests from the
//! declared parameters (valid and hostile, from a seeded generator) and validates answers
//! against the declared response schemas (OpenAPI 3.1 = JSON Schema 2020-12, `$ref`s resolved
//! against the document's `components`).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

pub const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/// One operation of the document.
#[derive(Clone, Debug)]
pub struct Op {
    pub method: String,
    pub path: String,
    pub op: Value,
    /// Parameters of the operation and of its path item, `$ref`s resolved.
    pub params: Vec<Param>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub location: String,
    pub required: bool,
    pub schema: Value,
}

impl Op {
    pub fn label(&self) -> String {
        format!("{} {}", self.method.to_uppercase(), self.path)
    }
    pub fn path_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = self.path.as_str();
        while let Some(start) = rest.find('{') {
            let Some(end) = rest[start..].find('}') else { break };
            out.push(rest[start + 1..start + end].to_owned());
            rest = &rest[start + end + 1..];
        }
        out
    }
}

/// The document plus helpers.
pub struct Doc {
    pub doc: Value,
}

impl Doc {
    pub fn new(doc: Value) -> Doc {
        Doc { doc }
    }

    /// Follows a local `$ref` (`#/a/b`), repeatedly.
    pub fn deref<'a>(&'a self, mut v: &'a Value) -> &'a Value {
        for _ in 0..16 {
            match v.get("$ref").and_then(Value::as_str) {
                Some(r) if r.starts_with("#/") => match self.doc.pointer(&r[1..]) {
                    Some(t) => v = t,
                    None => return v,
                },
                _ => return v,
            }
        }
        v
    }

    pub fn operations(&self) -> Vec<Op> {
        let mut out = Vec::new();
        let Some(paths) = self.doc.get("paths").and_then(Value::as_object) else {
            return out;
        };
        for (path, item) in paths {
            let item = self.deref(item);
            let shared: Vec<Value> = item
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for m in METHODS {
                let Some(op) = item.get(*m) else { continue };
                let mut params: BTreeMap<(String, String), Param> = BTreeMap::new();
                let own = op.get("parameters").and_then(Value::as_array).cloned().unwrap_or_default();
                for p in shared.iter().chain(own.iter()) {
                    let p = self.deref(p);
                    let name = p.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                    let location = p.get("in").and_then(Value::as_str).unwrap_or("").to_owned();
                    let required = p.get("required").and_then(Value::as_bool).unwrap_or(false);
                    let schema = p.get("schema").cloned().unwrap_or(Value::Null);
                    params.insert(
                        (location.clone(), name.clone()),
                        Param { name, location, required, schema },
                    );
                }
                out.push(Op {
                    method: m.to_string(),
                    path: path.clone(),
                    op: op.clone(),
                    params: params.into_values().collect(),
                });
            }
        }
        out
    }

    /// The declared answer for `status` (or `default`), resolved.
    pub fn response<'a>(&'a self, op: &'a Op, status: &str) -> Option<&'a Value> {
        op.op.get("responses")?.get(status).map(|r| self.deref(r))
    }

    /// The JSON schema of the 200 answer, if any (`application/json` or `*json`).
    pub fn json_schema_200<'a>(&'a self, op: &'a Op) -> Option<&'a Value> {
        let content = self.response(op, "200")?.get("content")?.as_object()?;
        content
            .iter()
            .find(|(k, _)| k.contains("json"))
            .and_then(|(_, v)| v.get("schema"))
    }

    /// The request body's content map, if declared.
    pub fn request_content<'a>(&'a self, op: &'a Op) -> Option<&'a serde_json::Map<String, Value>> {
        let body = self.deref(op.op.get("requestBody")?);
        body.get("content")?.as_object()
    }

    /// Whether a (resolved) schema is an envelope `{code, success, data, msg}`.
    pub fn envelope_data<'a>(&'a self, schema: &'a Value) -> Option<&'a Value> {
        let s = self.resolve_all(schema);
        let props = s.get("properties")?.as_object()?;
        if props.contains_key("code") && props.contains_key("success") && props.contains_key("msg") {
            Some(props.get("data").unwrap_or(&Value::Null))
        } else {
            None
        }
    }

    /// Follows `$ref` and a single-element `allOf` wrapper.
    pub fn resolve_all<'a>(&'a self, schema: &'a Value) -> &'a Value {
        let mut s = self.deref(schema);
        for _ in 0..8 {
            match s.get("allOf").and_then(Value::as_array) {
                Some(a) if a.len() == 1 && s.get("properties").is_none() => s = self.deref(&a[0]),
                _ => break,
            }
        }
        s
    }

    /// An empty schema (`{}`, `true`, only annotations): says nothing about the value.
    pub fn is_unconstrained(&self, schema: &Value) -> bool {
        let s = self.deref(schema);
        match s {
            Value::Bool(true) | Value::Null => true,
            Value::Object(m) => !m.keys().any(|k| {
                !matches!(
                    k.as_str(),
                    "description" | "title" | "example" | "examples" | "default" | "deprecated"
                        | "readOnly" | "writeOnly" | "$comment" | "format" | "nullable"
                )
            }),
            _ => false,
        }
    }

    /// A validator for `schema` whose `$ref`s point into this document.
    pub fn validator(&self, schema: &Value) -> Result<jsonschema::Validator, String> {
        let mut root = serde_json::Map::new();
        root.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
        if let Some(c) = self.doc.get("components") {
            root.insert("components".into(), c.clone());
        }
        root.insert("allOf".into(), json!([schema]));
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&Value::Object(root))
            .map_err(|e| format!("schema does not compile: {e}"))
    }
}

/// Violations of `value` against `schema`, as `pointer: message` (at most `limit`).
pub fn violations(validator: &jsonschema::Validator, value: &Value, limit: usize) -> Vec<String> {
    validator
        .iter_errors(value)
        .take(limit)
        .map(|e| {
            let ptr = e.instance_path().to_string();
            let ptr = if ptr.is_empty() { "/".to_owned() } else { ptr };
            let mut msg = e.to_string();
            if msg.len() > 240 {
                let mut cut = 240;
                while !msg.is_char_boundary(cut) {
                    cut -= 1;
                }
                msg.truncate(cut);
                msg.push('…');
            }
            format!("{ptr}: {msg}")
        })
        .collect()
}

/// A deterministic generator (xorshift64*), so a failing case reproduces from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// A stable per-operation seed (FNV-1a of the label xor the run seed).
pub fn op_seed(run_seed: u64, label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h ^ run_seed
}

/// Hostile values for a parameter or a field: wrong types, huge numbers, odd strings.
pub const HOSTILE: &[&str] = &[
    "",
    "abc",
    "-1",
    "0",
    "1.5",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999999999999",
    "-9223372036854775809",
    "1e309",
    "NaN",
    "true",
    "null",
    "[]",
    "{}",
    "1,2,,3,x",
    "' OR '1'='1",
    "\"; DROP TABLE blade_user; --",
    "../../../../etc/passwd",
    "%00",
    "\u{0}",
    "☃\u{202e}ǅ\u{fffd}",
    "2026-13-45 25:61:61",
    "<script>alert(1)</script>",
];

/// Hostile JSON bodies.
pub fn hostile_bodies() -> Vec<Value> {
    vec![
        json!([]),
        json!("text"),
        json!(12),
        json!(null),
        json!({"id": "99999999999999999999999", "name": 5, "stationId": [], "ids": {"x": 1}}),
        json!({"id": -1, "current": "x", "size": 1e300, "tenantId": "' OR 1=1 --"}),
        json!({"id": "abc", "status": "∞", "name": "x".repeat(5000)}),
    ]
}

/// Names of a schema's type(s).
pub fn types_of(doc: &Doc, schema: &Value) -> BTreeSet<String> {
    let s = doc.resolve_all(schema);
    let mut out = BTreeSet::new();
    match s.get("type") {
        Some(Value::String(t)) => {
            out.insert(t.clone());
        }
        Some(Value::Array(a)) => {
            for t in a.iter().filter_map(Value::as_str) {
                out.insert(t.to_owned());
            }
        }
        _ => {
            for key in ["oneOf", "anyOf"] {
                if let Some(a) = s.get(key).and_then(Value::as_array) {
                    for v in a {
                        out.extend(types_of(doc, v));
                    }
                }
            }
        }
    }
    out
}
