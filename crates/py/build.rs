//! `_engine.__build__`: a SHA-256 of the sources that decide a simulation's
//! result (the engine crate, this binding and the locked dependency
//! versions). A results store keys runs by it, so an engine rebuilt with a
//! changed model never serves the old engine's results, whatever its version.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(path);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = here.join("../..");
    let mut paths = Vec::new();
    for dir in [root.join("crates/engine/src"), here.join("src")] {
        println!("cargo:rerun-if-changed={}", dir.display());
        files(&dir, &mut paths);
    }
    for file in [root.join("crates/engine/Cargo.toml"), root.join("Cargo.lock")] {
        println!("cargo:rerun-if-changed={}", file.display());
        paths.push(file);
    }
    paths.sort();
    let mut hash = Sha256::new();
    for path in &paths {
        // the path relative to the workspace, so a clone elsewhere gives the same digest
        let name = path.strip_prefix(&root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        hash.update(name.as_bytes());
        hash.update(std::fs::read(path).unwrap_or_default());
    }
    let digest: String = hash.finalize().iter().take(10).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=PACKETPATH_BUILD={digest}");
}
