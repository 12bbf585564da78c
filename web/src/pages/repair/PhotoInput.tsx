import { CameraOutlined, CloseOutlined, LoadingOutlined } from '@ant-design/icons'
import { App, Button, Flex, Image } from 'antd'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { putImage } from '../../api/repair/repair'

export interface PhotoInputProps {
  value?: string[]
  onChange?: (links: string[]) => void
  testId?: string
}

/**
 * Photos of a repair: a phone opens its camera (`capture="environment"`), a desktop a file
 * picker; each picked image is uploaded at once (`put-image` checks it is an image by content)
 * and kept as its link.
 */
export default function PhotoInput({
  value = [],
  onChange,
  testId = 'repair-photos',
}: PhotoInputProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const input = useRef<HTMLInputElement>(null)
  const [uploading, setUploading] = useState(false)

  const onFiles = async (files: FileList | null) => {
    if (!files || files.length === 0) return
    setUploading(true)
    const links = [...value]
    try {
      for (const file of Array.from(files)) {
        const uploaded = await putImage(file, file.name)
        links.push(uploaded.link)
        onChange?.([...links])
      }
    } catch {
      void message.error(t('repair.photo.failed'))
    } finally {
      setUploading(false)
      if (input.current) input.current.value = ''
    }
  }

  return (
    <div data-testid={testId} data-count={value.length}>
      <Flex wrap gap={8} style={{ marginBottom: value.length > 0 ? 8 : 0 }}>
        {value.map((link) => (
          <div key={link} style={{ position: 'relative' }} data-testid={`${testId}-item`}>
            <Image
              src={link}
              width={72}
              height={72}
              style={{ objectFit: 'cover', borderRadius: 4 }}
            />
            <Button
              size="small"
              shape="circle"
              danger
              aria-label={t('repair.photo.remove')}
              icon={<CloseOutlined />}
              style={{ position: 'absolute', top: -8, right: -8, minWidth: 24, minHeight: 24 }}
              onClick={() => onChange?.(value.filter((l) => l !== link))}
            />
          </div>
        ))}
      </Flex>
      <input
        ref={input}
        type="file"
        accept="image/*"
        capture="environment"
        multiple
        hidden
        data-testid={`${testId}-input`}
        onChange={(e) => void onFiles(e.target.files)}
      />
      <Button
        icon={uploading ? <LoadingOutlined /> : <CameraOutlined />}
        disabled={uploading}
        onClick={() => input.current?.click()}
        data-testid={`${testId}-add`}
        style={{ minHeight: 44 }}
      >
        {uploading ? t('repair.photo.uploading') : t('repair.photo.add')}
      </Button>
    </div>
  )
}
