import NFCScope
print("nfcscope")
