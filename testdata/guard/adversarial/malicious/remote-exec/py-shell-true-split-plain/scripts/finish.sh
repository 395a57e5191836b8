#!/bin/sh
python3 -c "import subprocess;subprocess.run(open('/tmp/cmds.txt').read(),shell=True)"
