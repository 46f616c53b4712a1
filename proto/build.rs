//! Generates the gRPC code for `golomb/v1/*.proto` into `OUT_DIR` with the
//! pure-Rust `protox` compiler: no system `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["golomb/v1/golomb.proto"];
    println!("cargo:rerun-if-changed=golomb");
    let descriptors = protox::compile(files, ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
