//! Generates the gRPC code for `golomb/v1/*.proto` into `OUT_DIR` with the
//! pure-Rust `protox` compiler: no system `protoc` is needed. It also writes
//! the encoded descriptor set (`golomb_descriptor.bin`), which the
//! coordinator's server reflection serves (`compile_fds` writes none itself).

use protox::prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["golomb/v1/golomb.proto"];
    println!("cargo:rerun-if-changed=golomb");
    let descriptors = protox::compile(files, ["."])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("golomb_descriptor.bin"), descriptors.encode_to_vec())?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
