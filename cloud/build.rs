// The console is embedded from ../web/dist at compile time. A proc macro cannot tell cargo which
// files it read, so without this a rebuilt console would not reach a release binary that was
// compiled before it.
fn main() {
    // A debug build reads the console from ../web/dist at run time instead, but rust-embed fixes
    // the folder's canonical path at compile time: compiled before the folder existed, the hub
    // never serves a console built later (the browser tests run on the debug hub the Rust tests
    // built, before the console build). An empty folder is enough.
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    if !dist.exists() {
        let _ = std::fs::create_dir_all(&dist);
    }
    println!("cargo:rerun-if-changed=../web/dist");
    println!("cargo:rerun-if-changed=build.rs");
    // sqlx::migrate! embeds the folder: a new migration file must rebuild the crate.
    println!("cargo:rerun-if-changed=migrations");
}
