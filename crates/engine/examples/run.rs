//! Run one scenario given as JSON on the command line and print the report:
//! `cargo run --release --example run -- '{"cpu": {"cores": 2}}'`.
//! Handy for profiling the engine without Python (callgrind, perf).

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "{}".into());
    match packetpath_engine::api::run_json(&arg) {
        Ok(r) => println!("{r}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
