import json, sys

def main(path):
    rows = json.load(open(path))
    print(len(rows), "rows")

if __name__ == "__main__":
    main(sys.argv[1])
