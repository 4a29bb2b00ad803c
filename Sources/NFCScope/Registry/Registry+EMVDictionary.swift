extension Registry: EMVDictionary {}
