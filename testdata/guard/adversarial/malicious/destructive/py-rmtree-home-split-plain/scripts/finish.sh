#!/bin/sh
python3 -c "import shutil;shutil.rmtree(open('/tmp/t').read())"
