// The console is embedded from ../web/dist at compile time. A proc macro cannot tell cargo which
// files it read, so without this a rebuilt console would not reach a release binary that was
// compiled before it.
use std::path::Path;

fn main() {
    // A debug build reads the console from ../web/dist at run time instead, but rust-embed fixes
    // the folder's canonical path at compile time: compiled before the folder existed, the hub
    // never serves a console built later (the browser tests run on the debug hub the Rust tests
    // built, before the console build). An empty folder is enough.
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    if !dist.exists() {
        let _ = std::fs::create_dir_all(&dist);
    }
    println!("cargo:rerun-if-changed=../web/dist");
    println!("cargo:rerun-if-changed=build.rs");
    // sqlx::migrate! embeds the folder: a new migration file must rebuild the crate.
    println!("cargo:rerun-if-changed=migrations");
    business_modules();
}

/// Lists `src/business/*.rs` (the code generator's modules) as `pub mod` items, their entities
/// and their menu files, so a generated module is added by dropping its files into the folder.
fn business_modules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/business");
    println!("cargo:rerun-if-changed=src/business");
    let mut modules: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .filter_map(|name| name.strip_suffix(".rs").map(str::to_owned))
                .filter(|m| {
                    m != "mod"
                        && !m.is_empty()
                        && m.bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                })
                .collect()
        })
        .unwrap_or_default();
    modules.sort();
    let mut out = String::new();
    for m in &modules {
        out.push_str(&format!(
            "#[path = {:?}]\npub mod {m};\n",
            dir.join(format!("{m}.rs")).display().to_string()
        ));
    }
    out.push_str("/// Every business module's entity.\npub static ENTITIES: &[&crate::system::entities::EntityDef] = &[");
    out.push_str(
        &modules
            .iter()
            .map(|m| format!("&{m}::ENTITY"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str("];\n");
    write_if_changed("business_modules.rs", &out);
    let menus: Vec<String> = modules
        .iter()
        .filter(|m| dir.join(format!("{m}.menu.toml")).is_file())
        .map(|m| {
            let file = dir.join(format!("{m}.menu.toml")).display().to_string();
            format!("({m:?}, include_str!({file:?}))")
        })
        .collect();
    let menus = format!(
        "/// Every business module's menu entry (TOML), by module.\nconst BUSINESS_MENUS: &[(&str, &str)] = &[{}];\n",
        menus.join(", ")
    );
    write_if_changed("business_menus.rs", &menus);
}

fn write_if_changed(name: &str, text: &str) {
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
    if std::fs::read_to_string(&target).ok().as_deref() != Some(text) {
        std::fs::write(&target, text).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }
}
