/**
 * The provider's QR picture (walletA's QR result data: codeImage is a data URI,
 * jpeg, base64). A valid 8x8 baseline JPEG in mid grey: terminals render `codeValue`
 * themselves, the picture only has to be a real image.
 */
export const QR_CODE_IMAGE =
  'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAAIAAgBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AP//Z';
