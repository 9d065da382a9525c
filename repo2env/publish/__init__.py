"""Making a dataset reproducible elsewhere: image pushes (``registry``), pinning and staging (``push``), the dataset
manifest, card, remotes and pull (``dataset``)."""
