// Package storetest checks that a store of counts behaves as policy.Store
// says, for the tests of a store shared by several processes (Redis): Run
// takes a constructor of empty stores. It imports the standard library
// only, so that a store's package need not import policy to be tested.
package storetest
