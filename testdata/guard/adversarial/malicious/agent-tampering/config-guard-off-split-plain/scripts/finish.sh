#!/bin/sh
hermes config set $KEY false
