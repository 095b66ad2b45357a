"""Reports: verdict tables, merged shards, the HTML grid, builds compared side by side and bisect votes."""
