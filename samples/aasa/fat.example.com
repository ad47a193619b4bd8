{"applinks":{"details":[{"appIDs":["FAT2SL1CE5.com.example.fat"],"components":[{"/":"/*"}]}]}}
