//! The code generator: from a code row, its model and the model's field settings, the files that
//! add a business table to this product, written as an engineer of this repository would by hand:
//! - `cloud/src/business/{module}.rs`: the entity on the kernel's entity engine (its routes and
//!   OpenAPI schemas come from the declaration);
//! - `cloud/migrations/{version}_{module}.sql`: its table, in the DDL both SQLite and PostgreSQL take;
//! - `cloud/src/business/{module}.menu.toml`: its menu entry and buttons;
//! - `web/src/api/business/{camel}.ts`, `web/src/pages/business/{camel}/{config.ts,index.tsx}`:
//!   the console's typed API module and its list/form page, with zh and en text.
//!
//! The templates live in `templates/` (minijinja). What a template cannot say simply (how long a
//! line may grow before the formatters break it) is decided here, so the files come out as
//! `cargo fmt` and Prettier would leave them.

use minijinja::Environment;
use serde::Serialize;
use utoipa::ToSchema;

use super::prototype::Prototype;

/// One generated file.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GeneratedFile {
    /// Its path inside the repository.
    pub path: String,
    /// `rust`, `sql`, `toml`, `typescript` or `tsx`.
    pub language: String,
    pub content: String,
}

/// What the generator takes from a code row and its model.
#[derive(Debug, Clone)]
pub struct Spec {
    pub module: String,
    pub name_zh: String,
    pub name_en: String,
    pub tenant_scoped: bool,
    pub model_code: String,
    pub model_table: String,
    /// The migration's version (the code row's creation time, `yyyyMMddHHmmss`): the same on
    /// every generation of the row, so a regenerated file replaces the old one.
    pub version: String,
    /// Place of the menu entry among the generated ones.
    pub sort: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("template {0}: {1}")]
    Template(&'static str, minijinja::Error),
}

const TEMPLATES: &[(&str, &str)] = &[
    ("entity.rs", include_str!("templates/entity.rs.jinja")),
    ("migration.sql", include_str!("templates/migration.sql.jinja")),
    ("menu.toml", include_str!("templates/menu.toml.jinja")),
    ("api.ts", include_str!("templates/api.ts.jinja")),
    ("config.ts", include_str!("templates/config.ts.jinja")),
    ("index.tsx", include_str!("templates/index.tsx.jinja")),
];

/// `spare_part` → `sparePart`.
pub fn camel(module: &str) -> String {
    super::prototype::camel(module)
}

fn pascal(module: &str) -> String {
    let c = camel(module);
    let mut chars = c.chars();
    chars
        .next()
        .map(|f| f.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A Rust string literal.
fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// A TypeScript string literal in the console's style (single quotes).
fn ts_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Display width as the formatters count it (East Asian wide characters take two columns).
fn width(s: &str) -> usize {
    s.chars()
        .map(|c| {
            let u = c as u32;
            if (0x1100..=0x115F).contains(&u)
                || (0x2E80..=0xA4CF).contains(&u)
                || (0xAC00..=0xD7A3).contains(&u)
                || (0xF900..=0xFAFF).contains(&u)
                || (0xFE30..=0xFE4F).contains(&u)
                || (0xFF00..=0xFF60).contains(&u)
                || (0xFFE0..=0xFFE6).contains(&u)
            {
                2
            } else {
                1
            }
        })
        .sum()
}

fn rust_ty(p: &Prototype) -> String {
    let bound = |v: Option<f64>, default: &str| v.map_or(default.to_owned(), |v| format!("{v:?}"));
    match p.property_type.as_str() {
        "integer" if p.min_value.is_none() && p.max_value.is_none() => "Ty::INT".into(),
        "integer" => format!(
            "Ty::int({}, {})",
            p.min_value
                .map_or("i64::MIN".into(), |v| (v.ceil() as i64).to_string()),
            p.max_value
                .map_or("i64::MAX".into(), |v| (v.floor() as i64).to_string()),
        ),
        "number" if p.min_value.is_none() && p.max_value.is_none() => "Ty::FLOAT".into(),
        "number" => format!(
            "Ty::number({}, {})",
            bound(p.min_value, "f64::MIN"),
            bound(p.max_value, "f64::MAX"),
        ),
        "date" => "Ty::Date".into(),
        _ => format!("Ty::Text({})", p.max_length.unwrap_or(0)),
    }
}

fn sql_type(p: &Prototype) -> String {
    match p.property_type.as_str() {
        "integer" | "date" => "BIGINT".into(),
        "number" => "DOUBLE PRECISION".into(),
        _ => match p.max_length {
            Some(n) if n <= 4000 => format!("VARCHAR({n})"),
            _ => "TEXT".into(),
        },
    }
}

fn ts_type(p: &Prototype) -> &'static str {
    match p.property_type.as_str() {
        "integer" | "number" => "number",
        _ => "string",
    }
}

/// One `Col` of the entity, laid out as rustfmt lays it out (width 110; a call's arguments on
/// one line up to 66 columns; a chain of more than one call on one line up to 66 columns).
fn rust_col(p: &Prototype) -> String {
    const INDENT: &str = "        ";
    let args = [
        rust_str(&p.property_name),
        rust_str(&p.jdbc_name),
        rust_ty(p),
        rust_str(p.label_zh.trim()),
        rust_str(p.label_en.trim()),
    ];
    let joined = args.join(", ");
    let mut calls = Vec::new();
    if p.required {
        calls.push(".required()");
    }
    if p.search {
        calls.push(".filter()");
    }
    let root_one_line = format!("Col::new({joined})");
    let fits_args = width(&joined) <= 66 && INDENT.len() + width(&root_one_line) < 110;
    if fits_args {
        let chain = format!("{root_one_line}{}", calls.concat());
        let fits_line = INDENT.len() + width(&chain) < 110;
        // rustfmt holds a chain of one call to the line width, longer chains to 66 columns.
        if fits_line && (calls.len() <= 1 || width(&chain) <= 66) {
            return format!("{INDENT}{chain},");
        }
        let mut out = format!("{INDENT}{root_one_line}");
        for c in &calls {
            out.push_str(&format!("\n{INDENT}    {c}"));
        }
        out.push(',');
        return out;
    }
    let mut out = format!("{INDENT}Col::new(\n");
    for a in &args {
        out.push_str(&format!("{INDENT}    {a},\n"));
    }
    out.push_str(&format!("{INDENT})"));
    for c in &calls {
        out.push_str(&format!("\n{INDENT}{c}"));
    }
    out.push(',');
    out
}

#[derive(Serialize)]
struct FieldCtx {
    column: String,
    prop: String,
    sql_type: String,
    required: bool,
    list: bool,
    form: bool,
    search: bool,
    ts_type: &'static str,
    ts_field_type: &'static str,
    zh_ts: String,
    en_ts: String,
    required_zh_ts: String,
    required_en_ts: String,
    max: Option<i64>,
    dict: Option<String>,
    numeric_select: bool,
    /// `{ min: 0, max: 100 }`: the form's own bounds check for a number.
    range: Option<String>,
}

fn field_ctx(p: &Prototype) -> FieldCtx {
    let zh = p.label_zh.trim();
    let en = p.label_en.trim();
    let choose = matches!(p.component.as_str(), "select" | "date");
    FieldCtx {
        column: p.jdbc_name.clone(),
        prop: p.property_name.clone(),
        sql_type: sql_type(p),
        required: p.required,
        list: p.list,
        form: p.form,
        search: p.search,
        ts_type: ts_type(p),
        ts_field_type: match p.component.as_str() {
            "textarea" => "textarea",
            "number" => "number",
            "select" => "select",
            "date" => "date",
            _ => "input",
        },
        zh_ts: ts_str(zh),
        en_ts: ts_str(en),
        // The hub's own wording for a missing value (Col::missing).
        required_zh_ts: ts_str(&format!("{}{zh}", if choose { "请选择" } else { "请输入" })),
        required_en_ts: ts_str(&format!(
            "{} the {en}",
            if choose { "Please select" } else { "Please enter" }
        )),
        max: if p.property_type == "string" {
            p.max_length
        } else {
            None
        },
        dict: p
            .dict_code
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty() && p.component == "select")
            .map(str::to_owned),
        numeric_select: p.component == "select" && p.property_type == "integer",
        range: range_of(p),
    }
}

fn range_of(p: &Prototype) -> Option<String> {
    if !matches!(p.property_type.as_str(), "integer" | "number") {
        return None;
    }
    let part = |name: &str, v: Option<f64>| v.map(|v| format!("{name}: {v}"));
    let parts: Vec<String> = [part("min", p.min_value), part("max", p.max_value)]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| format!("{{ {} }}", parts.join(", ")))
}

/// Every file of one code row.
pub fn generate(spec: &Spec, fields: &[Prototype]) -> Result<Vec<GeneratedFile>, GenError> {
    let mut env = Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .build()
        .map_err(|e| GenError::Template("syntax", e))?;
    env.set_syntax(syntax);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| GenError::Template(name, e))?;
    }
    let camel = camel(&spec.module);
    let ctx = minijinja::context! {
        module => &spec.module,
        camel => &camel,
        pascal => pascal(&spec.module),
        kebab => spec.module.replace('_', "-"),
        table => format!("biz_{}", spec.module),
        menu_code => format!("biz_{}", spec.module),
        name_zh => &spec.name_zh,
        name_en => &spec.name_en,
        name_zh_toml => toml_str(&spec.name_zh),
        name_en_toml => toml_str(&spec.name_en),
        tenant_scoped => if spec.tenant_scoped { "true" } else { "false" },
        model_code => &spec.model_code,
        model_table => &spec.model_table,
        sort => spec.sort,
        rust_fields => fields.iter().map(rust_col).collect::<Vec<_>>().join("\n"),
        fields => minijinja::Value::from(minijinja::value::Serde(fields.iter().map(field_ctx).collect::<Vec<_>>())),
    };
    let render = |name: &'static str| -> Result<String, GenError> {
        env.get_template(name)
            .and_then(|t| t.render(&ctx))
            .map_err(|e| GenError::Template(name, e))
    };
    let m = &spec.module;
    Ok(vec![
        file(format!("cloud/src/business/{m}.rs"), "rust", render("entity.rs")?),
        file(
            format!("cloud/migrations/{}_{m}.sql", spec.version),
            "sql",
            render("migration.sql")?,
        ),
        file(
            format!("cloud/src/business/{m}.menu.toml"),
            "toml",
            render("menu.toml")?,
        ),
        file(
            format!("web/src/api/business/{camel}.ts"),
            "typescript",
            render("api.ts")?,
        ),
        file(
            format!("web/src/pages/business/{camel}/config.ts"),
            "typescript",
            render("config.ts")?,
        ),
        file(
            format!("web/src/pages/business/{camel}/index.tsx"),
            "tsx",
            render("index.tsx")?,
        ),
    ])
}

fn file(path: String, language: &str, content: String) -> GeneratedFile {
    GeneratedFile {
        path,
        language: language.to_owned(),
        content,
    }
}

/// The files of several code rows as one zip.
pub fn zip(files: &[GeneratedFile]) -> Result<Vec<u8>, zip::result::ZipError> {
    use std::io::Write;
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for f in files {
        out.start_file(f.path.as_str(), options)?;
        out.write_all(f.content.as_bytes())?;
    }
    Ok(out.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(column: &str, ty: &str, component: &str, required: bool) -> Prototype {
        Prototype {
            id: None,
            model_id: None,
            jdbc_name: column.into(),
            jdbc_type: "TEXT".into(),
            property_name: camel(column),
            property_type: ty.into(),
            label_zh: "名称".into(),
            label_en: "Name".into(),
            component: component.into(),
            required,
            list: true,
            search: required,
            form: true,
            dict_code: None,
            max_length: Some(64),
            min_value: None,
            max_value: None,
            sort: 1,
        }
    }

    #[test]
    fn names_and_literals() {
        assert_eq!(camel("spare_part"), "sparePart");
        assert_eq!(pascal("spare_part_2"), "SparePart2");
        assert_eq!(ts_str("it's \\ ok"), "'it\\'s \\\\ ok'");
        assert_eq!(rust_str("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(width("备件a"), 5);
    }

    #[test]
    fn a_short_column_is_one_line_and_a_long_one_breaks_as_rustfmt_does() {
        let short = rust_col(&proto("qty", "integer", "number", false));
        assert_eq!(
            short,
            "        Col::new(\"qty\", \"qty\", Ty::INT, \"名称\", \"Name\"),"
        );
        let mut long = proto("part_name", "string", "input", true);
        long.label_en = "The name of the spare part as the warehouse knows it".into();
        let text = rust_col(&long);
        assert!(
            text.starts_with("        Col::new(\n            \"partName\",\n"),
            "{text}"
        );
        assert!(
            text.ends_with("        )\n        .required()\n        .filter(),"),
            "{text}"
        );
    }

    #[test]
    fn every_file_is_made_with_the_module_names() {
        let spec = Spec {
            module: "spare_part".into(),
            name_zh: "备品备件".into(),
            name_en: "Spare parts".into(),
            tenant_scoped: true,
            model_code: "spare_part".into(),
            model_table: "spare_part".into(),
            version: "20261129120000".into(),
            sort: 1,
        };
        let mut qty = proto("quantity", "integer", "number", false);
        qty.min_value = Some(0.0);
        qty.max_value = Some(100.0);
        let files = generate(&spec, &[proto("part_name", "string", "input", true), qty]).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "cloud/src/business/spare_part.rs",
                "cloud/migrations/20261129120000_spare_part.sql",
                "cloud/src/business/spare_part.menu.toml",
                "web/src/api/business/sparePart.ts",
                "web/src/pages/business/sparePart/config.ts",
                "web/src/pages/business/sparePart/index.tsx",
            ]
        );
        assert!(
            files[0].content.contains("table: \"biz_spare_part\""),
            "{}",
            files[0].content
        );
        assert!(
            files[1].content.contains("part_name VARCHAR(64) NOT NULL,"),
            "{}",
            files[1].content
        );
        assert!(
            files[4]
                .content
                .contains("required: { zh: '请输入名称', en: 'Please enter the Name' },"),
            "{}",
            files[4].content
        );
        assert!(
            files[5].content.contains("<CrudPage config={sparePartConfig} />"),
            "{}",
            files[5].content
        );
        let zipped = zip(&files).unwrap();
        assert_eq!(&zipped[..2], b"PK");
    }
}
