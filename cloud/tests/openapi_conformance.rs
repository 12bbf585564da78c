//! The OpenAPI document against the hub itself.
//!
//! `completeness`: every operation of `/api/openapi.json` declares the parameters it reads (path
//! parameters always; query parameters and a request body whenever the handler's signature
//! extracts them) and a schema for its 200 answer: the envelope `{code, success, data, msg}` with
//! a `data` schema that says something, or a documented body for the few raw answers (OAuth token,
//! captcha, file downloads and spreadsheets, the websocket, this document).
//!
//! `conformance`: signed in as the platform administrator, every operation (but the skips listed
//! in [`SKIP`]) is called with requests generated from its declared parameters: one valid request
//! (ids taken from real rows created or listed first) and a few hostile ones (required parameters
//! missing, wrong types, huge numbers, odd strings, hostile bodies), from a seeded generator
//! (`OPENAPI_FUZZ_SEED`, printed on failure) so a failure reproduces. Every answer must not be a
//! 5xx, must be the envelope with `success == (code == 200)` and `code` equal to the HTTP status,
//! and when it is 200 must validate against the declared 200 schema.
//!
//! Both run on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`, like the other integration tests.
//!
//! A ratchet, not an all-or-nothing gate: each test reduces its findings to stable lines (no ids,
//! timestamps or bodies: operation, case kind, JSON pointer with indices as `*`, message with the
//! value masked) and compares them with `tests/openapi_known_findings.txt` (see
//! [`openapi::ratchet`]): a finding not listed fails (a regression), a listed one that no longer
//! occurs fails too (fixed: remove its line), so the list only shrinks. Lines tagged `[sqlite]` or
//! `[postgres]` are expected only on that back-end. `OPENAPI_WRITE_BASELINE=1` rewrites the file
//! from the current findings instead of failing.

#[path = "support/openapi.rs"]
mod openapi;
use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use openapi::{Doc, HOSTILE, Op, Rng, hostile_bodies, op_seed, ratchet, types_of, violations};
use serde_json::{Value, json};
use support::{BASIC_SABER, TestApp, is_postgres};

fn backend() -> &'static str {
    if is_postgres() { "postgres" } else { "sqlite" }
}

/// Operations the conformance run does not call, with the reason.
const SKIP: &[(&str, &str, &str)] = &[
    (
        "get",
        "/ws/{userId}",
        "websocket upgrade: not a request/answer exchange",
    ),
    (
        "post",
        "/api/blade-auth/oauth/logout",
        "ends the session the run is signed in with",
    ),
    (
        "get",
        "/api/blade-auth/oauth/logout",
        "ends the session the run is signed in with",
    ),
];

/// Answers that are not the envelope by design: path fragments and why.
const RAW: &[(&str, &str)] = &[
    ("/api/blade-auth/oauth/token", "OAuth token: flat JSON"),
    ("/api/blade-auth/oauth/captcha", "captcha: flat JSON"),
    (
        "/api/blade-auth/oauth/logout",
        "logout: not enveloped (conventions)",
    ),
    ("/api/blade-resource/oss/endpoint/file/", "file download"),
    ("/export", "spreadsheet download"),
    ("/api/blade-report/report/rest/download/", "report file download"),
    ("/import-template", "spreadsheet download"),
    ("/ws/", "websocket"),
    ("/api/openapi.json", "this document"),
];

fn is_raw(path: &str) -> bool {
    RAW.iter().any(|(frag, _)| path.contains(frag))
}

/// Operations that change or remove rows others use (run after everything else, so the rows
/// the other operations need are still there), the ones touching the administrator last.
fn destructive_rank(op: &Op) -> u8 {
    let p = op.path.to_lowercase();
    if p.contains("blade-user/remove") || p.contains("password") || p.contains("audit-refuse") {
        3
    } else if op.method == "delete"
        || p.contains("remove")
        || p.contains("delete")
        || p.contains("clear-cache")
    {
        2
    } else if op.method == "get" {
        0
    } else {
        1
    }
}

// ---------------------------------------------------------------------------------------------
// What the handlers read, from their source (cloud/src): `#[utoipa::path(method, path = "...")]`
// followed by the handler's signature.

#[derive(Clone, Debug, Default)]
struct Handler {
    file: String,
    reads_query: bool,
    reads_body: bool,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

struct Source {
    handlers: BTreeMap<(String, String), Handler>,
    files: Vec<(String, String)>,
}

impl Source {
    fn scan() -> Source {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        rust_files(&root.join("src"), &mut paths);
        paths.sort();
        let mut handlers = BTreeMap::new();
        let mut files = Vec::new();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            let mut at = 0;
            while let Some(i) = text[at..].find("#[utoipa::path(") {
                let start = at + i + "#[utoipa::path(".len();
                at = start;
                let method: String = text[start..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                let Some(fn_at) = text[start..].find("fn ").map(|j| start + j) else {
                    continue;
                };
                let attr = &text[start..fn_at];
                let Some(pi) = attr.find("path = \"") else {
                    continue;
                };
                let lit = &attr[pi + 8..];
                let Some(end) = lit.find('"') else { continue };
                let path = lit[..end].to_owned();
                let sig_end = text[fn_at..].find('{').map(|j| fn_at + j).unwrap_or(text.len());
                let sig = &text[fn_at..sig_end];
                let args = sig.split("->").next().unwrap_or(sig);
                let reads_query =
                    args.contains("Query<") || args.contains("Query(") || args.contains("RawQuery");
                let reads_body = args.contains("Json<")
                    || args.contains("Json(")
                    || args.contains("Multipart")
                    || args.contains("Form<")
                    || args.contains("Bytes");
                handlers.insert(
                    (method.to_lowercase(), path),
                    Handler {
                        file: rel.clone(),
                        reads_query,
                        reads_body,
                    },
                );
            }
            files.push((rel, text));
        }
        Source { handlers, files }
    }

    /// The source file of an operation's handler: the `#[utoipa::path]` that names it, else the
    /// file mentioning its path literally (routes declared through macros), else `?`.
    fn file_of(&self, method: &str, path: &str) -> String {
        if let Some(h) = self.handlers.get(&(method.to_owned(), path.to_owned())) {
            return h.file.clone();
        }
        let quoted = format!("\"{path}\"");
        if let Some((f, _)) = self.files.iter().find(|(_, t)| t.contains(&quoted)) {
            return f.clone();
        }
        // Generic CRUD entities: `base: "/api/.../entity"` with the document built by a generator.
        if let Some((base, _)) = path.rsplit_once('/') {
            let def = format!("base: \"{base}\"");
            if let Some((f, _)) = self.files.iter().find(|(_, t)| t.contains(&def)) {
                return format!(
                    "{f} (entity definition; routes and documentation generated in src/system/crud.rs)"
                );
            }
        }
        let base = path.split("/{").next().unwrap_or(path);
        let quoted = format!("\"{base}");
        self.files
            .iter()
            .find(|(_, t)| t.contains(&quoted))
            .map(|(f, _)| f.clone())
            .unwrap_or_else(|| "?".into())
    }
}

// ---------------------------------------------------------------------------------------------
// Completeness.

async fn fetch_doc(app: &TestApp) -> Doc {
    let reply = app.get("/api/openapi.json").await;
    let (status, doc) = (reply.status, reply.body);
    assert_eq!(status, 200, "GET /api/openapi.json");
    assert!(
        doc.get("openapi")
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("3.1")),
        "an OpenAPI 3.1 document"
    );
    Doc::new(doc)
}

fn completeness_findings(doc: &Doc, src: &Source) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for op in doc.operations() {
        let mut missing: Vec<String> = Vec::new();
        let declared_path: BTreeSet<String> = op
            .params
            .iter()
            .filter(|p| p.location == "path")
            .map(|p| p.name.clone())
            .collect();
        let template: BTreeSet<String> = op.path_names().into_iter().collect();
        for n in template.difference(&declared_path) {
            missing.push(format!("path parameter `{n}` not declared"));
        }
        for n in declared_path.difference(&template) {
            missing.push(format!("declares path parameter `{n}` that is not in the path"));
        }
        for p in &op.params {
            if p.location == "path" && !p.required {
                missing.push(format!("path parameter `{}` not marked required", p.name));
            }
            if doc.is_unconstrained(&p.schema) {
                missing.push(format!("parameter `{}` ({}) has no schema", p.name, p.location));
            }
        }
        let query: Vec<&str> = op
            .params
            .iter()
            .filter(|p| p.location == "query")
            .map(|p| p.name.as_str())
            .collect();
        if let Some(h) = src.handlers.get(&(op.method.clone(), op.path.clone())) {
            if h.reads_query && query.is_empty() {
                missing.push("handler reads the query string but no query parameter is declared".into());
            }
            if h.reads_body && op.op.get("requestBody").is_none() {
                missing.push("handler reads a request body but none is declared".into());
            }
        }
        let p = op.path.to_lowercase();
        if (p.ends_with("/page") || p.contains("/page")) && op.method == "get" {
            for name in ["current", "size"] {
                if !query.contains(&name) {
                    missing.push(format!("paged list without the `{name}` query parameter"));
                }
            }
        }
        if let Some(content) = doc.request_content(&op) {
            for (ct, media) in content {
                if ct.contains("json") && media.get("schema").is_none_or(|s| doc.is_unconstrained(s)) {
                    missing.push(format!("request body ({ct}) has no schema"));
                }
            }
        }
        // The 200 answer.
        let ws = op.path.starts_with("/ws/");
        match doc
            .response(&op, "200")
            .or_else(|| if ws { doc.response(&op, "101") } else { None })
        {
            None => missing.push("no 200 response declared".into()),
            Some(r) if is_raw(&op.path) || doc.raw_media_200(&op).is_some() => {
                let has_body = r
                    .get("content")
                    .and_then(Value::as_object)
                    .is_some_and(|c| !c.is_empty());
                if !has_body && !ws {
                    missing.push("raw (non-envelope) 200 answer without a documented body (content)".into());
                }
                if let Some(s) = doc.json_schema_200(&op)
                    && doc.is_unconstrained(s)
                {
                    missing.push("raw JSON 200 answer with an empty schema".into());
                }
            }
            Some(_) => match doc.json_schema_200(&op) {
                None => missing.push("200 response has no JSON schema".into()),
                Some(s) => match doc.envelope_data(s) {
                    None => missing.push("200 schema is not the envelope {code, success, data, msg}".into()),
                    Some(data) if data.is_null() => missing.push("envelope without a `data` property".into()),
                    Some(data) if doc.is_unconstrained(data) => {
                        missing.push("envelope `data` schema is empty (any JSON)".into())
                    }
                    Some(data) => {
                        if let Err(e) = doc.validator(data) {
                            missing.push(format!("`data` schema: {e}"));
                        }
                        // A page whose records are untyped says nothing about them.
                        let d = doc.resolve_all(data);
                        if let Some(rec) = d.pointer("/properties/records/items")
                            && doc.is_unconstrained(rec)
                        {
                            missing.push("page `records` items have an empty schema".into());
                        }
                        if d.get("type").and_then(Value::as_str) == Some("array")
                            && d.get("items").is_none_or(|i| doc.is_unconstrained(i))
                        {
                            missing.push("`data` is an array with an empty items schema".into());
                        }
                    }
                },
            },
        }
        for m in missing {
            out.push((src.file_of(&op.method, &op.path), format!("{}: {m}", op.label())));
        }
    }
    out
}

fn print_grouped(title: &str, findings: &[(String, String)]) -> String {
    let mut by_file: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (f, line) in findings {
        by_file.entry(f.as_str()).or_default().push(line.as_str());
    }
    let mut text = format!("== {title}: {} finding(s)\n", findings.len());
    for (f, lines) in by_file {
        text.push_str(&format!("-- {f} ({})\n", lines.len()));
        for l in lines {
            text.push_str(&format!("  {l}\n"));
        }
    }
    eprintln!("{text}");
    if let Ok(dir) = std::env::var("OPENAPI_REPORT_DIR") {
        let name = title.split_whitespace().next().unwrap_or("report").to_lowercase();
        let _ = std::fs::write(Path::new(&dir).join(format!("{name}.txt")), &text);
    }
    text
}

#[tokio::test]
async fn completeness() {
    let app = TestApp::start().await;
    let doc = fetch_doc(&app).await;
    let src = Source::scan();
    let ops = doc.operations();
    assert!(!ops.is_empty(), "the document lists operations");
    let findings = completeness_findings(&doc, &src);
    let failing: BTreeSet<&str> = findings
        .iter()
        .map(|(_, l)| l.split(": ").next().unwrap_or(""))
        .collect();
    eprintln!("{} operations, {} incomplete", ops.len(), failing.len());
    print_grouped("Completeness", &findings);
    app.stop().await;
    let found: BTreeMap<String, String> = findings
        .iter()
        .map(|(f, l)| (format!("completeness: {l}"), format!("{l} ({f})")))
        .collect();
    match ratchet("completeness", backend(), &found) {
        Ok(m) => eprintln!("{m}"),
        Err(e) => panic!(
            "{e}\n({} of {} operations incompletely documented, {} finding(s), listed above)",
            failing.len(),
            ops.len(),
            findings.len()
        ),
    }
}

/// A write on selected rows is all or nothing (`kernel::id::all_found`): an id the caller may not
/// act on refuses the whole selection with 404, a malformed id list with 400. Every such
/// operation (the POSTs taking `ids`/`userIds`: the generic admin removes and the like) says so
/// in the document.
#[tokio::test]
async fn writes_on_selected_rows_document_their_refusals() {
    let app = TestApp::start().await;
    let doc = fetch_doc(&app).await;
    app.stop().await;
    let mut missing = Vec::new();
    let mut checked = 0;
    for op in doc.operations() {
        let takes_ids = op
            .params
            .iter()
            .any(|p| p.location == "query" && p.required && (p.name == "ids" || p.name == "userIds"));
        if op.method != "post" || !takes_ids {
            continue;
        }
        checked += 1;
        for status in ["400", "404"] {
            match doc.response(&op, status) {
                None => missing.push(format!("{}: no {status} answer", op.label())),
                Some(r)
                    if r.get("description")
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty) =>
                {
                    missing.push(format!("{}: {status} answer without a description", op.label()))
                }
                Some(_) => {}
            }
        }
    }
    assert!(
        checked > 20,
        "the generic admin removes are among them ({checked})"
    );
    assert!(
        missing.is_empty(),
        "{} undocumented refusal(s):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Conformance.

/// Ids of real rows, by the resource prefix of the path that listed them.
#[derive(Default)]
struct Pool {
    ids: BTreeMap<String, Vec<String>>,
    station: String,
    inverter: String,
    user: String,
}

fn resource_prefix(path: &str) -> String {
    let segs: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect();
    if segs.len() <= 2 {
        return format!("/{}", segs.join("/"));
    }
    format!("/{}", segs[..segs.len() - 1].join("/"))
}

impl Pool {
    fn harvest(&mut self, path: &str, data: &Value) {
        let mut found = Vec::new();
        collect_ids(data, &mut found, 0);
        if found.is_empty() {
            return;
        }
        let e = self.ids.entry(resource_prefix(path)).or_default();
        for id in found {
            if !e.contains(&id) && e.len() < 8 {
                e.push(id);
            }
        }
    }

    fn first_for(&self, word: &str) -> Option<String> {
        let word = word.to_lowercase();
        if word.is_empty() {
            return None;
        }
        self.ids
            .iter()
            .find(|(k, v)| {
                let last = k
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .to_lowercase()
                    .replace("blade-", "");
                !v.is_empty() && (last == word || last.starts_with(&word))
            })
            .map(|(_, v)| v[0].clone())
    }

    /// A plausible existing id for parameter `name` of `path`.
    fn id_for(&self, name: &str, path: &str) -> String {
        let n = name.to_lowercase();
        let p = path.to_lowercase();
        if n.contains("station") || (n == "id" && p.contains("bystation")) {
            return self.station.clone();
        }
        if n.contains("inverter") || n.contains("device") {
            return self.inverter.clone();
        }
        if n.starts_with("user") {
            return self.user.clone();
        }
        if n.starts_with("parent") {
            return "0".into();
        }
        let word = n.trim_end_matches('s').trim_end_matches("id");
        if let Some(id) = self.first_for(word) {
            return id;
        }
        if let Some(id) = self.ids.get(&resource_prefix(path)).and_then(|v| v.first()) {
            return id.clone();
        }
        if p.contains("station") {
            return self.station.clone();
        }
        if p.contains("inverter") {
            return self.inverter.clone();
        }
        if p.contains("blade-user") {
            return self.user.clone();
        }
        "1".into()
    }
}

fn collect_ids(v: &Value, out: &mut Vec<String>, depth: u8) {
    if depth > 4 || out.len() >= 8 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(id) = m.get("id") {
                match id {
                    Value::String(s) if !s.is_empty() => out.push(s.clone()),
                    Value::Number(n) => out.push(n.to_string()),
                    _ => {}
                }
            }
            for key in ["records", "children", "list", "data"] {
                if let Some(c) = m.get(key) {
                    collect_ids(c, out, depth + 1);
                }
            }
        }
        Value::Array(a) => {
            for x in a.iter().take(8) {
                collect_ids(x, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A valid example value (as text) for a parameter.
fn valid_param(doc: &Doc, pool: &Pool, name: &str, schema: &Value, path: &str) -> String {
    let s = doc.resolve_all(schema);
    if let Some(ex) = s.get("example").or_else(|| s.get("default")) {
        return match ex {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
    }
    if let Some(first) = s.get("enum").and_then(Value::as_array).and_then(|a| a.first()) {
        return match first {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
    }
    let n = name.to_lowercase();
    match n.as_str() {
        "current" => return "1".into(),
        "size" => return "10".into(),
        "tenantid" | "tenant" => return "000000".into(),
        "account" | "username" => return "admin".into(),
        "lang" | "language" => return "en".into(),
        _ => {}
    }
    if n.ends_with("id") || n.ends_with("ids") {
        return pool.id_for(name, path);
    }
    let types = types_of(doc, s);
    let format = s.get("format").and_then(Value::as_str).unwrap_or("");
    if format == "date" || n.ends_with("date") || n.contains("day") {
        return "2026-11-25".into();
    }
    if format == "date-time" || n.contains("time") {
        return "2026-11-25 00:00:00".into();
    }
    if n == "year" {
        return "2026".into();
    }
    if n == "month" {
        return "2026-11".into();
    }
    if types.contains("integer") || types.contains("number") {
        return "1".into();
    }
    if types.contains("boolean") {
        return "true".into();
    }
    "fuzz".into()
}

/// A valid example JSON value for a schema (bodies).
fn valid_json(doc: &Doc, pool: &Pool, name: &str, schema: &Value, path: &str, depth: u8) -> Value {
    let s = doc.resolve_all(schema);
    if depth > 5 {
        return Value::Null;
    }
    if let Some(ex) = s.get("example") {
        return ex.clone();
    }
    if let Some(first) = s.get("enum").and_then(Value::as_array).and_then(|a| a.first()) {
        return first.clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(a) = s.get(key).and_then(Value::as_array)
            && let Some(v) = a
                .iter()
                .find(|v| !types_of(doc, v).contains("null"))
                .or(a.first())
        {
            return valid_json(doc, pool, name, v, path, depth + 1);
        }
    }
    let types = types_of(doc, s);
    if types.contains("object") || s.get("properties").is_some() {
        let mut m = serde_json::Map::new();
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                if k == "id" {
                    continue; // submit without an id inserts
                }
                m.insert(k.clone(), valid_json(doc, pool, k, v, path, depth + 1));
            }
        }
        return Value::Object(m);
    }
    if types.contains("array") {
        let item = s.get("items").cloned().unwrap_or(json!({}));
        return json!([valid_json(doc, pool, name, &item, path, depth + 1)]);
    }
    let text = valid_param(doc, pool, name, s, path);
    if types.contains("integer") {
        return text.parse::<i64>().map(Value::from).unwrap_or(json!(1));
    }
    if types.contains("number") {
        return text
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .unwrap_or(json!(1));
    }
    if types.contains("boolean") {
        return json!(true);
    }
    if types.is_empty() && doc.is_unconstrained(s) && depth == 0 {
        return json!({});
    }
    Value::String(text)
}

#[derive(Clone, Debug)]
enum Body {
    None,
    Json(Value),
    Multipart,
}

#[derive(Clone, Debug)]
struct Case {
    kind: String,
    path_values: BTreeMap<String, String>,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Body,
}

impl Case {
    fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (k, v) in &self.path_values {
            parts.push(format!("{k}={}", show(v)));
        }
        for (k, v) in &self.query {
            parts.push(format!("{k}={}", show(v)));
        }
        for (k, v) in &self.headers {
            parts.push(format!("header {k}={}", show(v)));
        }
        match &self.body {
            Body::None => {}
            Body::Json(v) => parts.push(format!("body={}", show(&v.to_string()))),
            Body::Multipart => parts.push("body=multipart".into()),
        }
        format!("{}: {}", self.kind, parts.join(", "))
    }
}

fn show(v: &str) -> String {
    let mut s: String = v.chars().take(60).collect();
    if v.chars().count() > 60 {
        s.push('…');
    }
    format!("{s:?}")
}

fn encode_segment(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn valid_case(doc: &Doc, pool: &Pool, op: &Op) -> Case {
    let mut c = Case {
        kind: "valid".into(),
        path_values: BTreeMap::new(),
        query: Vec::new(),
        headers: Vec::new(),
        body: Body::None,
    };
    for p in &op.params {
        let v = valid_param(doc, pool, &p.name, &p.schema, &op.path);
        match p.location.as_str() {
            "path" => {
                c.path_values.insert(p.name.clone(), v);
            }
            "query" => c.query.push((p.name.clone(), v)),
            "header" if p.required => c.headers.push((p.name.clone(), v)),
            _ => {}
        }
    }
    // Path parameters the document forgot: still call the route.
    for n in op.path_names() {
        c.path_values
            .entry(n.clone())
            .or_insert_with(|| pool.id_for(&n, &op.path));
    }
    if let Some(content) = doc.request_content(op) {
        if let Some((_, media)) = content.iter().find(|(k, _)| k.contains("json")) {
            let schema = media.get("schema").cloned().unwrap_or(json!({}));
            c.body = Body::Json(valid_json(doc, pool, "", &schema, &op.path, 0));
        } else if content.keys().any(|k| k.contains("multipart")) {
            c.body = Body::Multipart;
        } else {
            c.body = Body::Json(json!({}));
        }
    } else if matches!(op.method.as_str(), "post" | "put") {
        // Undeclared bodies: a handler reading one still gets an object.
        c.body = Body::Json(json!({}));
    }
    c
}

/// At most `n` hostile variants of the valid case, drawn from `rng`.
fn hostile_cases(op: &Op, valid: &Case, rng: &mut Rng, n: usize) -> Vec<Case> {
    let mut out = Vec::new();
    let required: Vec<&openapi::Param> = op
        .params
        .iter()
        .filter(|p| p.required && p.location != "path")
        .collect();
    if !required.is_empty() {
        let mut c = valid.clone();
        c.kind = "missing required".into();
        c.query.retain(|(k, _)| !required.iter().any(|p| &p.name == k));
        c.headers.retain(|(k, _)| !required.iter().any(|p| &p.name == k));
        out.push(c);
    }
    // Mutable slots: path values, query values, undeclared query params, the body.
    let mut slots: Vec<(u8, String)> = Vec::new();
    for k in valid.path_values.keys() {
        slots.push((0, k.clone()));
    }
    for (k, _) in &valid.query {
        slots.push((1, k.clone()));
    }
    if matches!(valid.body, Body::Json(_)) {
        slots.push((2, String::new()));
        slots.push((2, String::new()));
    }
    if slots.is_empty() || slots.len() < 2 {
        for k in ["id", "current", "size", "ids", "stationId"] {
            slots.push((3, k.into()));
        }
    }
    let bodies = hostile_bodies();
    let mut guard = 0;
    while out.len() < n && guard < n * 4 {
        guard += 1;
        let (kind, name) = rng.pick(&slots).clone();
        let value = rng.pick(HOSTILE).to_string();
        let mut c = valid.clone();
        match kind {
            0 => {
                if value.is_empty() {
                    continue; // an empty segment is another route
                }
                c.kind = format!("hostile path {name}");
                c.path_values.insert(name, value);
            }
            1 => {
                c.kind = format!("hostile query {name}");
                for (k, v) in c.query.iter_mut() {
                    if *k == name {
                        *v = value.clone();
                    }
                }
            }
            2 => {
                c.kind = "hostile body".into();
                c.body = Body::Json(rng.pick(&bodies).clone());
            }
            _ => {
                c.kind = format!("undeclared query {name}");
                c.query.push((name, value));
            }
        }
        if c.kind.starts_with("hostile query")
            || c.kind.starts_with("hostile path")
            || c.kind.starts_with("undeclared")
        {
            // Sometimes a second, very long, value.
            if rng.next().is_multiple_of(4) {
                c.query.push(("size".into(), "x".repeat(3000)));
            }
        }
        out.push(c);
    }
    out
}

struct Answer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

async fn send(
    app: &TestApp,
    client: &reqwest::Client,
    token: &str,
    op: &Op,
    c: &Case,
) -> Result<Answer, String> {
    let mut path = op.path.clone();
    for (k, v) in &c.path_values {
        path = path.replace(&format!("{{{k}}}"), &encode_segment(v));
    }
    let method = reqwest::Method::from_bytes(op.method.to_uppercase().as_bytes()).expect("method");
    let mut req = client
        .request(method, app.url(&path))
        .header("Authorization", BASIC_SABER)
        .header("Blade-Auth", format!("bearer {token}"))
        .header("Tenant-Id", "000000")
        .query(&c.query);
    for (k, v) in &c.headers {
        req = req.header(k.as_str(), v.as_str());
    }
    req = match &c.body {
        Body::None => req,
        Body::Json(v) => req.json(v),
        Body::Multipart => req.multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(b"fuzz,not,a,spreadsheet\n".to_vec()).file_name("fuzz.xlsx"),
        )),
    };
    let res = req.send().await.map_err(|e| format!("no answer: {e}"))?;
    let status = res.status().as_u16();
    let content_type = res
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = res.bytes().await.map_err(|e| format!("body cut: {e}"))?.to_vec();
    Ok(Answer {
        status,
        content_type,
        body,
    })
}

/// Checks one answer; returns `pointer: what` lines and the parsed body.
/// Each line is `(key, detail)`: the key without run-specific values (ids, timestamps, bodies).
fn check(
    doc: &Doc,
    validators: &mut BTreeMap<String, Result<jsonschema::Validator, String>>,
    op: &Op,
    a: &Answer,
) -> (Vec<(String, String)>, Option<Value>) {
    let mut v = Vec::new();
    if a.status >= 500 {
        let l = format!("/: HTTP {} (server fault)", a.status);
        v.push((l.clone(), l));
    }
    let parsed: Option<Value> = serde_json::from_slice(&a.body).ok();
    let label = op.label();
    let validate = |validators: &mut BTreeMap<String, Result<jsonschema::Validator, String>>,
                    body: &Value,
                    out: &mut Vec<(String, String)>| {
        let Some(schema) = doc.json_schema_200(op) else {
            return;
        };
        let entry = validators
            .entry(label.clone())
            .or_insert_with(|| doc.validator(schema));
        match entry {
            Ok(val) => out.extend(violations(val, body, 8)),
            Err(e) => out.push((format!("/: {e}"), format!("/: {e}"))),
        }
    };
    // Documented as raw content only (not JSON): the answer must be of a documented media type.
    if let Some(media) = doc.raw_media_200(op) {
        if a.status == 200 {
            let essence = a.content_type.split(';').next().unwrap_or("").trim();
            if !media.iter().any(|m| m.eq_ignore_ascii_case(essence)) {
                let l = format!(
                    "/: HTTP 200 content-type {:?} is not the documented {}",
                    a.content_type,
                    media.join(", ")
                );
                v.push((l.clone(), l));
            }
        }
        return (v, parsed);
    }
    if is_raw(&op.path) {
        if a.status == 200 && a.content_type.contains("json") {
            match &parsed {
                Some(body) => validate(validators, body, &mut v),
                None => {
                    let l = "/: content-type JSON but the body does not parse".to_owned();
                    v.push((l.clone(), l))
                }
            }
        }
        return (v, parsed);
    }
    let Some(body) = parsed.clone() else {
        let head = String::from_utf8_lossy(&a.body[..a.body.len().min(80)]).to_string();
        let key = format!(
            "/: HTTP {} body is not JSON (content-type {:?})",
            a.status, a.content_type
        );
        v.push((key.clone(), format!("{key}: {head:?}")));
        return (v, None);
    };
    let Some(obj) = body.as_object() else {
        let l = "/: body is not the envelope object".to_owned();
        v.push((l.clone(), l));
        return (v, parsed);
    };
    let code = obj.get("code").and_then(Value::as_i64);
    let success = obj.get("success").and_then(Value::as_bool);
    let mut lines: Vec<String> = Vec::new();
    match (code, success) {
        (Some(code), Some(success)) => {
            if success != (code == 200) {
                lines.push(format!("/success: {success} with code {code}"));
            }
            if code != a.status as i64 {
                lines.push(format!("/code: {code} but HTTP status {}", a.status));
            }
            if !obj.contains_key("msg") {
                lines.push("/msg: missing".into());
            }
            if !obj.contains_key("data") {
                lines.push("/data: missing".into());
            }
            if code == 200 {
                validate(validators, &body, &mut v);
            }
        }
        _ => lines.push(format!(
            "/: not the envelope (code {:?}, success {:?})",
            obj.get("code"),
            obj.get("success")
        )),
    }
    v.extend(lines.into_iter().map(|l| (l.clone(), l)));
    (v, parsed)
}

#[tokio::test]
async fn conformance() {
    let started = Instant::now();
    let seed: u64 = std::env::var("OPENAPI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261125);
    let cases_per_op: usize = std::env::var("OPENAPI_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let app = TestApp::start().await;
    let doc = fetch_doc(&app).await;
    let src = Source::scan();
    let mut token = app.token_of("000000", "admin", "admin").await;
    let client = crate::support::client::http_builder()
        .timeout(Duration::from_secs(15))
        .build()
        .expect("client");

    // Real rows: a station with a gateway and an inverter, the administrator.
    let mut pool = Pool::default();
    let reply = app
        .as_user(&token)
        .send(
            reqwest::Method::POST,
            "/api/station",
            Some(json!({"name": "Fuzz Plant", "gatewayId": "FUZZGW01"})),
        )
        .await;
    let (status, body) = (reply.status, reply.body);
    assert_eq!(status, 200, "create a station: {body}");
    pool.station = body["data"].as_str().expect("station id").to_owned();
    let reply = app
        .as_user(&token)
        .send(
            reqwest::Method::POST,
            "/api/inverter",
            Some(
                json!({"stationId": pool.station, "name": "INV-F", "sn": "FUZZSN0001",
                        "stringsCount": 2, "mapModel": "sungrow-sg-cx", "unitId": 1}),
            ),
        )
        .await;
    let (status, body) = (reply.status, reply.body);
    assert_eq!(status, 200, "create an inverter: {body}");
    pool.inverter = body["data"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| body["data"].to_string());
    let info = app
        .as_user(&token)
        .get("/api/blade-auth/oauth/user-info")
        .await
        .body;
    pool.user = info["data"]["userId"]
        .as_str()
        .or_else(|| info["data"]["user_id"].as_str())
        .or_else(|| info["data"]["id"].as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| "1123598821738675201".into());

    let mut ops = doc.operations();
    ops.sort_by_key(|o| {
        (
            destructive_rank(o),
            !o.path_names().is_empty(),
            o.path.clone(),
            o.method.clone(),
        )
    });
    let mut validators = BTreeMap::new();
    let mut findings: Vec<(String, String)> = Vec::new();
    // Stable key -> first full detail, for the ratchet.
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut skipped = Vec::new();
    let (mut calls, mut called_ops, mut ok200, mut unchecked200) = (0usize, 0usize, 0usize, 0usize);
    let mut per_status: BTreeMap<u16, usize> = BTreeMap::new();
    let mut relogins = 0;
    for op in &ops {
        if let Some((_, _, why)) = SKIP.iter().find(|(m, p, _)| *m == op.method && *p == op.path) {
            skipped.push(format!("{}: {why}", op.label()));
            continue;
        }
        called_ops += 1;
        let label = op.label();
        let mut rng = Rng::new(op_seed(seed, &label));
        let valid = valid_case(&doc, &pool, op);
        let mut cases = vec![valid.clone()];
        cases.extend(hostile_cases(
            op,
            &valid,
            &mut rng,
            cases_per_op.saturating_sub(1),
        ));
        // The token endpoint locks an account after repeated wrong passwords: vary it under
        // another account's name so the administrator stays usable.
        if op.path == "/api/blade-auth/oauth/token" {
            for c in cases.iter_mut().skip(1) {
                for (k, v) in c.query.iter_mut() {
                    if k == "username" {
                        *v = "fuzz-nobody".into();
                    }
                }
            }
        }
        for c in &cases {
            calls += 1;
            let answer = match send(&app, &client, &token, op, c).await {
                Ok(a) => a,
                Err(e) => {
                    let detail = format!("{label} ({}): /: {e}", c.describe());
                    found
                        .entry(format!("conformance: {label} [{}]: /: no answer", c.kind))
                        .or_insert_with(|| detail.clone());
                    findings.push((src.file_of(&op.method, &op.path), detail));
                    continue;
                }
            };
            *per_status.entry(answer.status).or_default() += 1;
            let (v, parsed) = check(&doc, &mut validators, op, &answer);
            if answer.status == 200 {
                ok200 += 1;
                if doc.json_schema_200(op).is_none() {
                    unchecked200 += 1;
                }
                if op.method == "get"
                    && let Some(body) = &parsed
                {
                    pool.harvest(&op.path, body.get("data").unwrap_or(body));
                }
            }
            for (key, line) in v {
                let detail = format!("{label} ({}): {line}", c.describe());
                found
                    .entry(format!("conformance: {label} [{}]: {key}", c.kind))
                    .or_insert_with(|| detail.clone());
                findings.push((src.file_of(&op.method, &op.path), detail));
            }
            // A call that cost the session (a password reset of the administrator...): sign in again.
            if answer.status == 401 && c.kind == "valid" {
                let reply = app.sign_in("000000", "admin", "admin").await;
                if reply.status == 200
                    && let Some(t) = reply.body["access_token"].as_str()
                {
                    token = t.to_owned();
                    relogins += 1;
                }
            }
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "seed {seed}: {} operations, {called_ops} called, {} skipped, {calls} requests \
         ({ok200} answered 200, {unchecked200} of them with no declared schema), statuses {per_status:?}, \
         {relogins} re-sign-ins, {:.1} s",
        ops.len(),
        skipped.len(),
        elapsed.as_secs_f64()
    );
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    let failing: BTreeSet<String> = findings
        .iter()
        .map(|(_, l)| l.split(" (").next().unwrap_or("").to_owned())
        .collect();
    print_grouped("Conformance", &findings);
    app.stop().await;
    match ratchet("conformance", backend(), &found) {
        Ok(m) => eprintln!("{m}"),
        Err(e) => panic!(
            "{e}\n({} violation(s), {} distinct, in {} of {called_ops} operations, listed above; \
             seed {seed}; rerun with OPENAPI_FUZZ_SEED={seed})",
            findings.len(),
            found.len(),
            failing.len()
        ),
    }
}
