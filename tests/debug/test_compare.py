"""The client-side recorder (gpubench.debug.client_recorder), `gpubench compare` and shadow mode.

No AMD GPU is here: MOCKKFD stands in for the hardware. The recorder is the code a real GPU run uses
(it hooks tinygrad's program launch and reads buffers through tinygrad's own allocator, nothing of
the emulator); what a real device would have computed is, here, what the emulator computed behind
MOCKKFD. Each tinygrad run is a subprocess: tinygrad's devices are global to a process.
"""
import io
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gpubench.debug import compare, replay
from gpubench.debug.bundle import BundleError, read_blob
from gpubench.debug.client_recorder import Launch, Shadow, Tally
from gpubench.debug_cli import compare as compare_command
from gpubench.debug_cli import debug
from gpubench.isa.codeobject import CodeObject
from test_record import SUITE, gpubench, launches


@pytest.fixture(scope="module")
def client_bundle(tmp_path_factory) -> Path:
    """The tiny suite (a + b, a 4x4 matmul) recorded at tinygrad's launches on MOCKKFD (the stand-in GPU)."""
    where = tmp_path_factory.mktemp("client")
    gpubench("run", "--dev", "MOCKKFD+AMD", "--record", "bundle", "--record-at", "client", str(SUITE), "-q", cwd=where)
    return where / "bundle"


def report(bundle: Path, tmp_path: Path, *options: str, status: int = 0) -> dict:
    out = tmp_path / "report.json"
    result = CliRunner().invoke(compare_command, [str(bundle), "--json-report", str(out), *options])
    assert result.exit_code == status and "Traceback" not in result.output, result.output
    return json.loads(out.read_text())


def test_client_recording_names_the_kernels_buffers_and_device(client_bundle):
    manifests = {kernel: json.loads(path.read_text()) for kernel, path in launches(client_bundle).items()}
    assert set(manifests) == {"E_4", "r_4_4_4"}
    add = manifests["E_4"]
    assert add["source"] == "client" and add["target"] == "gfx1100" and add["start"]["kind"] == "code_object"
    assert add["device"]["driver"].startswith("amdkfd ") and add["device"]["kfd_properties"]["gfx_target_version"] == 110000
    assert add["device"]["ip_versions"]["GC"] == "11.0.0"  # gfx1100's graphics and compute block
    arguments = [r for r in add["regions"] if r["role"] == "argument"]
    assert [(r["dtype"], r["size"]) for r in arguments] == [("float32", 16)] * 3  # out, a, b
    out = arguments[0]
    assert read_blob(client_bundle, out["after"], 16).view(np.float32).tolist() == [11.0, 22.0, 33.0, 44.0]
    assert arguments[1]["after"] is None  # an input: unchanged, stored once
    code_object = read_blob(client_bundle, add["start"]["code_object"], add["start"]["code_object_size"])
    assert CodeObject.load(code_object.tobytes()).target == "gfx1100"  # the ELF tinygrad loaded, as it was


def test_compare_finds_every_launch_equal(client_bundle, tmp_path):
    result = report(client_bundle, tmp_path)
    assert result["counts"] == {"equal": 2, "differs": 0, "error": 0}
    assert all(launch["compared"] == 3 for launch in result["launches"])  # the three buffers of each kernel


def test_an_altered_output_element_is_reported_with_its_buffer_index_and_values(client_bundle, tmp_path, altered_copy):
    def third_is_99(data):
        data[8:12] = np.frombuffer(struct.pack("<f", 99.0), np.uint8)
    broken = altered_copy(client_bundle, tmp_path / "broken", "E_4", lambda r: r.get("argument") == 0, third_is_99)
    result = report(broken, tmp_path, status=1)
    add = next(launch for launch in result["launches"] if launch["kernel"] == "E_4")
    assert add["status"] == "differs" and result["counts"]["equal"] == 1
    [difference] = add["differences"]
    # 33.0 is 0x42040000, 99.0 is 0x42c60000: 0xc20000 representable floats apart
    assert difference == {"region": "argument 0", "dtype": "float32", "elements": 4, "differing": 1, "first": 2,
                          "recorded": "99.0", "replayed": "33.0", "max_ulp": 0x42C60000 - 0x42040000}


def test_a_truncated_blob_or_manifest_is_a_clear_error(client_bundle, tmp_path):
    broken = shutil.copytree(client_bundle, tmp_path / "broken")
    blob = next((broken / "blobs").iterdir())
    blob.write_bytes(blob.read_bytes()[:len(blob.read_bytes()) // 2])
    manifest = launches(broken)["r_4_4_4"]
    manifest.write_text(manifest.read_text()[:100])
    result = CliRunner().invoke(compare_command, [str(broken)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "truncated or corrupt manifest" in " ".join(result.output.split())
    with pytest.raises(BundleError, match="truncated or corrupt"):
        read_blob(broken, blob.name.removesuffix(".zst"), 1)
    not_a_bundle = CliRunner().invoke(compare_command, [str(tmp_path)])
    assert not_a_bundle.exit_code == 1 and "not a gpubench bundle" in not_a_bundle.output


def test_a_bundle_compares_on_either_engine(client_bundle, tmp_path):
    for engine in ("reference", "native"):
        assert report(client_bundle, tmp_path, "--engine", engine)["counts"]["equal"] == 2


def test_an_emulator_recording_compares_on_the_other_engine(tmp_path):
    gpubench("run", "--dev", "MOCKKFD+AMD", "--engine", "reference", "--record", "bundle", str(SUITE), "-q",
             cwd=tmp_path)
    assert report(tmp_path / "bundle", tmp_path, "--engine", "native")["counts"]["equal"] == 2


def test_another_target_runs_the_code_where_its_encoding_allows(client_bundle, tmp_path):
    """gfx1151 (RDNA 3.5) decodes gfx1100's code alike; gfx1201 (RDNA4) re-encoded SMEM and global
    memory instructions: each launch is a clear illegal-instruction result there, not a crash."""
    assert report(client_bundle, tmp_path, "--target", "gfx1151")["counts"]["equal"] == 2
    rdna4 = report(client_bundle, tmp_path, "--target", "gfx1201", status=1)
    assert rdna4["counts"]["error"] == 2
    assert all("illegal instruction" in launch["error"] for launch in rdna4["launches"])


def test_shadow_mode_reports_nothing_when_the_emulator_agrees(tmp_path):
    """On two xdist workers (one test each): one summary for the run, the workers' launches summed."""
    done = gpubench("run", "--dev", "MOCKKFD+AMD", "--shadow", str(SUITE), "-q", "-n", "2", cwd=tmp_path)
    assert "2 passed" in done.stdout
    summaries = [line for line in (done.stdout + done.stderr).splitlines() if "launches run on the emulator" in line]
    assert summaries == ["gpubench shadow: 2 launches run on the emulator too, 0 differ"]


def test_a_client_recording_on_two_workers_names_each_launchs_test(tmp_path):
    done = gpubench("run", "--dev", "MOCKKFD+AMD", "--record", "bundle", "--record-at", "client", str(SUITE), "-q",
                    "-n", "2", cwd=tmp_path)
    assert f"recorded 2 launches at the client in {tmp_path / 'bundle'}" in done.stdout
    assert {path.name.split("-")[0] for path in (tmp_path / "bundle" / "launches").iterdir()} == {"gw0", "gw1"}
    tests = {json.loads(path.read_text())["test"] for path in (tmp_path / "bundle" / "launches").iterdir()}
    assert tests == {f"tests/debug/data/tinygrad_suite.py::{name}" for name in ("test_add", "test_matmul")}


def test_a_client_recorded_launch_debugs_alone(client_bundle, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("break global_store_b128\ncontinue\nsi\nx/4fw s[4:5]\n")  # E_4's output pointer
    launch = launches(client_bundle)["E_4"]
    debugged = CliRunner().invoke(debug, ["--recorded", str(launch), "-x", str(commands), "--batch"])
    assert debugged.exit_code == 0 and "<E_4+0x" in debugged.output, debugged.output
    assert debugged.output.rstrip().endswith(": 11 22 33 44"), debugged.output  # 1 + 10, 2 + 20, ...


def test_shadow_mode_reports_a_launch_whose_results_differ(client_bundle):
    recorded = replay.load(launches(client_bundle)["E_4"])
    device_result = recorded.regions[0].after.copy()
    device_result[:4] = np.frombuffer(struct.pack("<f", -11.0), np.uint8)  # as if the device wrote -11.0
    regions = [replay.Region(recorded.regions[0].entry, recorded.regions[0].before, device_result),
               *recorded.regions[1:]]
    stream = io.StringIO()
    shadow = Shadow(stream)
    shadow(Launch(recorded.manifest, regions, b""))
    line = stream.getvalue()
    label = "E_4 (launch 0, tests/debug/data/tinygrad_suite.py::test_add)"
    assert f"{label}: argument 0 (float32 x 4): 1 differ, first [0]: device -11.0, emulator 11.0" in line, line
    tally = Tally(shadowed=shadow.compared, differing=shadow.differing)
    summary = f"gpubench shadow: 1 launches run on the emulator too, 1 differ: {label}"
    assert tally.lines({"GPUBENCH_SHADOW": "1"}) == [summary]


@pytest.mark.parametrize("dtype,width", [(np.float16, 2), (np.float32, 4), (np.float64, 8)])
def test_max_ulp_counts_representable_values_between(dtype, width):
    start = np.array([1.0, -2.0, 0.0], dtype)
    steps = np.array([3, 5, 1])
    moved = start.copy()
    for i, n in enumerate(steps):
        for _ in range(n):  # numpy's nextafter walks one representable value at a time: an independent count
            moved[i] = np.nextafter(moved[i], dtype(np.inf) if start[i] >= 0 else dtype(-np.inf))
    bits = compare.BITS[width]
    assert compare.max_ulp(start.view(bits), moved.view(bits), width) == 5
    assert compare.max_ulp(np.array([0.0], dtype).view(bits), np.array([-0.0], dtype).view(bits), width) == 1


def test_bfloat16_values_read_as_the_top_half_of_a_float32():
    assert compare.value(np.uint16(0x3FC0), "bfloat16") == "1.5"
    assert compare.value(np.uint8(0x38), "float8_e4m3") == "0x38"
