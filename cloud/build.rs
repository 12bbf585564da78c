// The console is embedded from ../web/dist at compile time. A proc macro cannot tell cargo which
// files it read, so without this a rebuilt console would not reach a release binary that was
// compiled before it.
fn main() {
    println!("cargo:rerun-if-changed=../web/dist");
    println!("cargo:rerun-if-changed=build.rs");
    // sqlx::migrate! embeds the folder: a new migration file must rebuild the crate.
    println!("cargo:rerun-if-changed=migrations");
}
