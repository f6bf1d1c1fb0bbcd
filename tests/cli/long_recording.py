#!/usr/bin/env python3
"""A long recording is explained whole, not cut: writes a recorder log of LAUNCHES kernel launches
on one stream (a stream sync every 100: a loop of steps), runs `streamlab-cli explain` on it and
checks that no note says the trace was cut and that the steps were found; then `import` saves a
shorter one (SAVED launches, more than the 250 000 ops a trace once held) and `explain` loads the
saved file again (it round-trips whole).
Usage: long_recording.py CLI WORK_DIR [LAUNCHES [SAVED]]"""
import os
import re
import subprocess
import sys


def write_log(path, launches):
    with open(path, "w") as f:
        f.write('{"t":"meta","format":"streamlab-record","version":1,"pid":4242,"start":1000}\n')
        f.write('{"t":"thread","tid":0,"os_tid":4242}\n')
        f.write('{"t":"device","id":0,"sms":132,"warps_per_sm":64,"blocks_per_sm":32,"regs_per_sm":65536,'
                '"smem_per_sm":233472,"cc":[9,0],"name":"NVIDIA H100 80GB HBM3"}\n')
        f.write('{"t":"call","tid":0,"fn":"cudaStreamCreateWithFlags","role":"stream_create","dom":0,"b":2000,'
                '"e":3000,"corr":1,"stream":77,"sid":13,"flags":1}\n')
        t, corr = 10000, 2
        for i in range(launches):
            f.write('{"t":"call","tid":0,"fn":"cudaLaunchKernel","role":"launch","dom":0,"b":%d,"e":%d,"corr":%d,'
                    '"stream":77,"sid":13}\n' % (t, t + 3000, corr))
            f.write('{"t":"kernel","corr":%d,"dev":0,"sid":13,"b":%d,"e":%d,"grid":[128,1,1],"block":[256,1,1],'
                    '"regs":32,"ssmem":0,"dsmem":0,"graph":0,"name":"_Z4stepPfi"}\n' % (corr, t + 5000, t + 9000))
            t, corr = t + 10000, corr + 1
            if i % 100 == 99:
                f.write('{"t":"call","tid":0,"fn":"cudaStreamSynchronize","role":"sync_stream","dom":0,"b":%d,'
                        '"e":%d,"corr":%d,"stream":77,"sid":13}\n' % (t, t + 2000, corr))
                t, corr = t + 3000, corr + 1


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        print(" ".join(args) + f": exit {r.returncode}\n{r.stderr.strip()}")
        sys.exit(1)
    return r.stdout


def main():
    cli, work = sys.argv[1], sys.argv[2]
    launches = int(sys.argv[3]) if len(sys.argv) > 3 else 1050000
    saved_launches = int(sys.argv[4]) if len(sys.argv) > 4 else 300000
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "raw.4242.jsonl")
    write_log(log, launches)
    out = run([cli, "explain", log])
    if "only the first" in out or not re.search(r"Steps: \d+ steady", out):
        print("explain cut the recording or found no steps:\n" + out[:1200])
        return 1
    print(f"{launches} launches: explained whole, steps found")
    write_log(log, saved_launches)
    saved = os.path.join(work, "whole.json")
    run([cli, "import", log, "--out", saved])
    again = run([cli, "explain", saved])
    if "only the first" in again or not re.search(r"Steps: \d+ steady", again):
        print("the saved trace was cut or lost its steps:\n" + again[:800])
        return 1
    os.remove(log)
    os.remove(saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
