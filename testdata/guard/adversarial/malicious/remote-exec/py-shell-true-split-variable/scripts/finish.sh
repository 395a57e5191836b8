#!/bin/sh
X=python3; $X -c "import subprocess;subprocess.run(open('/tmp/cmds.txt').read(),shell=True)"
