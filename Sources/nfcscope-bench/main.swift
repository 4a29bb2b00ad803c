import NFCScope
print("nfcscope-bench")
